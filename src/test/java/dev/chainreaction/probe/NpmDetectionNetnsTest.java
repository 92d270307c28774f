package dev.chainreaction.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.cluster.NetworkNamespace;
import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.Iptables;
import dev.chainreaction.netfilter.KubeletIptablesCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** NPM's detection against real netfilter tables of a throwaway network namespace. */
@Tag("netns")
class NpmDetectionNetnsTest {
    NetworkNamespace ns;

    @BeforeEach
    void createNamespace() {
        ns = NetworkNamespace.create();
    }

    @AfterEach
    void deleteNamespace() {
        ns.close();
    }

    @Test
    void kubeletChainsInNftAreFoundByTheFirstCommand() {
        KubeletIptablesCalls.initialise(new Iptables(ns, Backend.NFT).requireInstalled());

        NpmDetection.Verdict verdict = NpmDetection.run(ns);

        assertThat(verdict.detected()).contains(Backend.NFT);
        assertThat(verdict.transcript()).singleElement().satisfies(call -> {
            assertThat(call.command()).isEqualTo("iptables-nft -w 60 -L KUBE-IPTABLES-HINT -t mangle -n");
            assertThat(call.exitCode()).isZero();
        });
    }

    @Test
    void hintOnlyInLegacyWithNftTablesInUseIsLegacyAfterTheNftWarning() {
        new Iptables(ns, Backend.LEGACY).requireInstalled().run("-w", "5", "-N", "KUBE-IPTABLES-HINT", "-t", "mangle")
                .orThrow();
        new Iptables(ns, Backend.NFT).run("-w", "5", "-A", "INPUT", "-i", "lo", "-j", "ACCEPT").orThrow();

        NpmDetection.Verdict verdict = NpmDetection.run(ns);

        assertThat(verdict.detected()).contains(Backend.LEGACY);
        assertThat(verdict.transcript()).extracting(NpmDetection.Call::command).containsExactly(
                "iptables-nft -w 60 -L KUBE-IPTABLES-HINT -t mangle -n",
                "iptables-nft -w 60 -L KUBE-KUBELET-CANARY -t mangle -n",
                "iptables-legacy -w 60 -L KUBE-IPTABLES-HINT -t mangle -n");
        assertThat(verdict.transcript().get(0).exitCode()).isEqualTo(1);
        assertThat(verdict.transcript().get(0).warnedAboutLegacyTables()).isTrue();
        assertThat(verdict.log()).contains("# Warning: iptables-legacy tables present, use iptables-legacy to see them");
    }

    @Test
    void noKubeletChainsAnywhereFailsWithNpmsMessageAfterFourCommands() {
        NpmDetection.Verdict verdict = NpmDetection.run(ns);

        assertThat(verdict.failed()).isTrue();
        assertThat(verdict.outcome()).isEqualTo("fails");
        assertThat(verdict.transcript()).hasSize(4).allSatisfy(c -> assertThat(c.exitCode()).isEqualTo(1));
        assertThat(verdict.log()).endsWith("error: failed to detect iptables version: unable to locate which "
                + "iptables version kube proxy is using\n");
    }
}
