package dev.chainreaction.netfilter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.cluster.NetworkNamespace;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The parser on what the real iptables-save of each backend prints, and back through iptables-restore. */
@Tag("netns")
class IptablesSaveNetnsTest {

    @ParameterizedTest
    @EnumSource(Backend.class)
    void roundTripsRealOutputThroughRestore(Backend backend) {
        try (NetworkNamespace ns = NetworkNamespace.create()) {
            Iptables iptables = new Iptables(ns, backend).requireInstalled();
            KubeletIptablesCalls.initialise(iptables);
            iptables.run("-w", "5", "-t", "nat", "-N", "KUBE-NODEPORTS").orThrow();
            iptables.run("-w", "5", "-t", "nat", "-A", "KUBE-NODEPORTS", "-p", "tcp", "-m", "comment", "--comment",
                    "cca-dp/web-np:http", "-m", "tcp", "--dport", "30780", "-j", "ACCEPT").orThrow();
            Ruleset parsed = iptables.save();
            assertThat(KubeletChains.ALL).allMatch(o -> o.presentIn(parsed));
            assertThat(parsed.rules("nat", "KUBE-NODEPORTS")).singleElement()
                    .satisfies(r -> assertThat(r.comment()).contains("cca-dp/web-np:http"));

            // Flush everything, restore what we printed, and the kernel must hold the same ruleset again.
            iptables.run("-w", "5", "-F").orThrow();
            for (String t : new String[] {"filter", "nat", "mangle"}) {
                iptables.run("-w", "5", "-t", t, "-F").orThrow();
                iptables.run("-w", "5", "-t", t, "-X").orThrow();
            }
            assertThat(KubeletChains.HINT.presentIn(iptables.save())).isFalse();
            iptables.restore(parsed.toSaveFormat());
            assertThat(RulesetDiff.between(parsed, iptables.save()).render()).isEqualTo("(no change)\n");
        }
    }
}
