package dev.chainreaction.netfilter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RulesetDiffTest {
    @Test
    void namesChainsAndRulesThatVanishedOrAppeared() {
        Ruleset before = IptablesSave.parse(IptablesSaveTest.KUBELET_NFT);
        Ruleset after = IptablesSave.parse("""
                *filter
                :INPUT DROP [0:0]
                :FORWARD ACCEPT [0:0]
                :OUTPUT ACCEPT [0:0]
                -A INPUT -i lo -j ACCEPT
                COMMIT
                """);

        RulesetDiff diff = RulesetDiff.between(before, after);

        assertThat(diff.chainsRemoved()).extracting(Object::toString).contains("mangle/KUBE-IPTABLES-HINT",
                "filter/KUBE-FIREWALL", "mangle/PREROUTING");
        assertThat(diff.rulesAdded()).extracting(Object::toString).containsExactly("filter: -A INPUT -i lo -j ACCEPT");
        assertThat(diff.rulesRemoved()).extracting(Object::toString).contains("filter: -A INPUT -j KUBE-FIREWALL");
        assertThat(diff.render()).contains("- chain mangle/KUBE-IPTABLES-HINT\n", "+ filter: -A INPUT -i lo -j ACCEPT\n");
        assertThat(RulesetDiff.between(before, before).isEmpty()).isTrue();
    }
}
