package dev.chainreaction.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KubeletInitVerdictTest {
    @Test
    void failedInitialisationCarriesTheIptablesError() {
        String journal = """
                Dec 02 14:00:01.100 node kubelet[2825]: I1202 14:00:01.100 2825 kubelet.go:1600] "Starting kubelet main sync loop"
                Dec 02 14:00:01.192 node kubelet[2825]: I1202 14:00:01.192213 2825 kubelet_network_linux.go:58] "Failed to initialize iptables rules; some functionality may be missing." protocol="IPv4"
                Dec 02 14:00:01.192 node kubelet[2825]: iptables v1.8.9 (nf_tables): Chain 'KUBE-FIREWALL' does not exist
                Dec 02 14:00:01.192 node kubelet[2825]: Try `iptables -h' or 'iptables --help' for more information.
                Dec 02 14:00:01.300 node kubelet[2825]: I1202 14:00:01.300 2825 kubelet_network_linux.go:49] "Initialized iptables rules." protocol="IPv6"
                """;
        KubeletInitVerdict v = KubeletInitVerdict.read(journal);
        assertThat(v.state()).isEqualTo(KubeletInitVerdict.State.FAILED);
        assertThat(v.error()).containsExactly("iptables v1.8.9 (nf_tables): Chain 'KUBE-FIREWALL' does not exist",
                "Try `iptables -h' or 'iptables --help' for more information.");
    }

    @Test
    void v134LogsTheErrorBeforeTheVerdict() {
        String journal = """
                Dec 02 14:20:01.100 node kubelet[77]: E1202 14:20:01.100 77 kubelet_network_linux.go:92] "Failed to ensure that OUTPUT chain jumps to KUBE-FIREWALL" err=<
                Dec 02 14:20:01.100 node kubelet[77]:         error checking rule: exit status 2: iptables v1.8.9 (nf_tables): Chain 'KUBE-FIREWALL' does not exist
                Dec 02 14:20:01.100 node kubelet[77]:         Try `iptables -h' or 'iptables --help' for more information.
                Dec 02 14:20:01.100 node kubelet[77]:  >
                Dec 02 14:20:01.101 node kubelet[77]: I1202 14:20:01.101 77 kubelet_network_linux.go:62] "Failed to initialize iptables rules; some functionality may be missing." protocol="IPv4"
                """;
        KubeletInitVerdict v = KubeletInitVerdict.read(journal);
        assertThat(v.state()).isEqualTo(KubeletInitVerdict.State.FAILED);
        assertThat(v.error()).hasSize(3).first().asString().contains("Failed to ensure that OUTPUT chain jumps to KUBE-FIREWALL");
        assertThat(v.error().get(1)).contains("Chain 'KUBE-FIREWALL' does not exist");
    }

    @Test
    void ipv6VerdictAloneDoesNotDecideAndNoVerdictIsPending() {
        String v6only = "kubelet[1]: I1202 kubelet_network_linux.go:49] \"Initialized iptables rules.\" protocol=\"IPv6\"\n";
        assertThat(KubeletInitVerdict.read(v6only).state()).isEqualTo(KubeletInitVerdict.State.PENDING);
        assertThat(KubeletInitVerdict.read(v6only + "kubelet[1]: \"Initialized iptables rules.\" protocol=\"IPv4\"\n").outcome())
                .isEqualTo("initialized");
    }
}
