package dev.chainreaction.netfilter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KubeletChainsTest {
    @Test
    void recognisesEachOfKubeletsObjectsInAHealthyDump() {
        Ruleset healthy = IptablesSave.parse(IptablesSaveTest.KUBELET_NFT);
        assertThat(KubeletChains.INIT_IPV4).allMatch(o -> o.presentIn(healthy));
        assertThat(KubeletChains.CANARY_MANGLE.presentIn(healthy)).isTrue();
        assertThat(KubeletChains.CANARY_NAT.presentIn(healthy)).isFalse();
    }

    @Test
    void aJumpToAnotherChainOrAnotherCommentDoesNotCount() {
        Ruleset other = IptablesSave.parse("""
                *filter
                :INPUT ACCEPT [0:0]
                :KUBE-FIREWALL - [0:0]
                :KUBE-PROXY-FIREWALL - [0:0]
                -A INPUT -j KUBE-PROXY-FIREWALL
                -A KUBE-FIREWALL -m comment --comment "something else" -j DROP
                COMMIT
                """);
        assertThat(KubeletChains.INPUT_JUMP.presentIn(other)).isFalse();
        assertThat(KubeletChains.LOCALNET_DROP.presentIn(other)).isFalse();
        assertThat(KubeletChains.FIREWALL.presentIn(other)).isTrue();
    }

    @Test
    void findsNodePortAndNoEndpointRulesOfKubeProxy() {
        Ruleset r = IptablesSave.parse("""
                *nat
                :KUBE-NODEPORTS - [0:0]
                :KUBE-EXT-ABCDEF - [0:0]
                -A KUBE-NODEPORTS -p tcp -m comment --comment "cca/web" -m tcp --dport 30780 -j KUBE-EXT-ABCDEF
                COMMIT
                *filter
                :KUBE-SERVICES - [0:0]
                -A KUBE-SERVICES -d 10.96.12.7/32 -p tcp -m comment --comment "cca/ghost:http has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable
                COMMIT
                """);
        assertThat(KubeProxyChains.hasNodePortRule(r, 30780)).isTrue();
        assertThat(KubeProxyChains.hasNodePortRule(r, 30781)).isFalse();
        assertThat(KubeProxyChains.noEndpointsReject("cca", "ghost", "http").presentIn(r)).isTrue();
        assertThat(KubeProxyChains.noEndpointsReject("cca", "web", "http").presentIn(r)).isFalse();
    }
}
