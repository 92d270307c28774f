package dev.chainreaction.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.NetworkNamespace;
import dev.chainreaction.netfilter.KubeletChains;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interposer script itself, in front of the real iptables in a namespace: armed at kubelet's OUTPUT-jump
 * check, a flush fired in between makes that check fail exactly as kubelet's did in the incident.
 */
@Tag("netns")
class KubeletStepInterposerNetnsTest {

    @Test
    void flushAtTheOutputJumpStepFailsKubeletsCheckWithTheIncidentsError(@TempDir Path tmp) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path run = Files.createDirectories(tmp.resolve("run"));
        Files.writeString(bin.resolve("iptables"), KubeletStepInterposer.script());
        Files.setPosixFilePermissions(bin.resolve("iptables"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(run.resolve("arm"), "iptables\n" + KubeletStepInterposer.stepCall("output-jump") + "\n");
        Files.writeString(run.resolve("fault.sh"), String.join("\n",
                IptablesServiceRestart.stopCommands("iptables-nft")) + "\n");

        try (NetworkNamespace ns = NetworkNamespace.create()) {
            List<ExecResult> results = new ArrayList<>();
            for (List<String> cmd : KubeletChains.initCommandsIpv4().subList(0, 4)) {
                List<String> argv = new ArrayList<>(List.of("env", "CHAINREACTION_RUN=" + run,
                        "PATH=" + bin + ":/usr/sbin:/usr/bin:/sbin:/bin", "iptables", "-w", "5"));
                argv.addAll(cmd);
                results.add(ns.exec(argv, null));
            }

            assertThat(results.get(0).exitCode()).as("-N hint").isZero();
            assertThat(results.get(1).exitCode()).as("-N KUBE-FIREWALL").isZero();
            assertThat(results.get(2).exitCode()).as("-C OUTPUT -j KUBE-FIREWALL after the flush").isEqualTo(2);
            assertThat(results.get(2).stderr()).contains("Chain 'KUBE-FIREWALL' does not exist");
            assertThat(Files.exists(run.resolve("arm.fired"))).isTrue();

            List<KubeletStepInterposer.InterposedEvent> events =
                    KubeletStepInterposer.parseLog(Files.readString(run.resolve("interposer.log")));
            assertThat(events).extracting(KubeletStepInterposer.InterposedEvent::kind)
                    .containsExactly("call", "call", "call", "fault-start", "fault-end", "call");
            assertThat(events.get(2).text()).endsWith("-C OUTPUT -t filter -j KUBE-FIREWALL");
            assertThat(events.get(2).exitCode()).isEqualTo(2);
            // The check waited for the fault: it ended after the fault did.
            assertThat(events.get(2).end()).isAfter(events.get(4).start());
        }
    }
}
