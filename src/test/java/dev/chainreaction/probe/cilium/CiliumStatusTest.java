package dev.chainreaction.probe.cilium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chainreaction.probe.cilium.CiliumStatus.Device;
import dev.chainreaction.probe.cilium.CiliumStatus.KubeProxyReplacement;
import dev.chainreaction.probe.cilium.CiliumStatus.NodePort;
import dev.chainreaction.probe.cilium.CiliumStatus.PortRange;
import dev.chainreaction.probe.cilium.CiliumStatus.SocketLbCoverage;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CiliumStatusTest {

    // status-verbose.txt: FormatStatusResponse of a 1.16+ pkg/client/client.go (Attach Mode, Device Mode, Socket LB
    // Coverage) through cilium-dbg/cmd/status.go's tabwriter(2, 0, 3), replayed with a kube-proxy-free k3s node.
    @Test
    void verboseStatusOfAKubeProxyFreeAgent() {
        CiliumStatus s = CiliumStatus.parse(Fixtures.read("status-verbose.txt"));

        assertThat(s.kubeProxyReplacement()).isEqualTo(KubeProxyReplacement.TRUE);
        assertThat(s.kubeProxyReplacement().full()).isTrue();
        assertThat(s.devices()).containsExactly(new Device("eth0", List.of("172.18.0.2"), true));
        assertThat(s.socketLb()).contains(true);
        assertThat(s.socketLbCoverage()).contains(SocketLbCoverage.FULL);
        assertThat(s.nodePort()).contains(new NodePort(true, Optional.of(new PortRange(30000, 32767))));
        assertThat(s.ciliumState()).contains("Ok");
        assertThat(s.detail("Mode")).contains("SNAT");
        assertThat(s.detail("Services/HostPort")).contains("Enabled");
        assertThat(s.detail("Services/LoadBalancer")).contains("Enabled");
        assertThat(s.summary("Routing")).hasValueSatisfying(v -> assertThat(v).endsWith("Host: Legacy"));
        // the controller table and the health table are not key lines: they must not leak into the summary
        assertThat(s.summary()).doesNotContainKey("cilium-health-ep").doesNotContainKey("Name");
    }

    // status.txt: the same agent without --verbose: no details block, so nothing about Socket LB or NodePort.
    @Test
    void plainStatusHasTheModeAndDevicesButNoDetails() {
        CiliumStatus s = CiliumStatus.parse(Fixtures.read("status.txt"));

        assertThat(s.kubeProxyReplacement()).isEqualTo(KubeProxyReplacement.TRUE);
        assertThat(s.devices()).extracting(Device::name).containsExactly("eth0");
        assertThat(s.socketLb()).isEmpty();
        assertThat(s.socketLbCoverage()).isEmpty();
        assertThat(s.nodePort()).isEmpty();
        assertThat(s.details()).isEmpty();
    }

    // status-verbose-kpr-false.txt: same code path with Mode False (no devices printed), socket LB off and the
    // BpfSocketLBHostnsOnly feature set.
    @Test
    void falseModeHasNoDevicesAndNodePortDisabled() {
        CiliumStatus s = CiliumStatus.parse(Fixtures.read("status-verbose-kpr-false.txt"));

        assertThat(s.kubeProxyReplacement()).isEqualTo(KubeProxyReplacement.FALSE);
        assertThat(s.kubeProxyReplacement().full()).isFalse();
        assertThat(s.devices()).isEmpty();
        assertThat(s.socketLb()).contains(false);
        assertThat(s.socketLbCoverage()).contains(SocketLbCoverage.HOSTNS_ONLY);
        assertThat(s.nodePort()).contains(new NodePort(false, Optional.empty()));
    }

    // status-pre-1.15-*.txt: the 2020-era pkg/client/client.go (modes Strict/Partial/Probe/Disabled, "Socket LB
    // Protocols" instead of Socket LB, no Coverage line, "Host Routing").
    @Test
    void preOneFifteenStrictIsAFullReplacementWithoutSocketLbLines() {
        CiliumStatus s = CiliumStatus.parse(Fixtures.read("status-pre-1.15-strict-verbose.txt"));

        assertThat(s.kubeProxyReplacement()).isEqualTo(KubeProxyReplacement.STRICT);
        assertThat(s.kubeProxyReplacement().full()).isTrue();
        assertThat(s.devices()).containsExactly(new Device("eth0", List.of("172.18.0.2"), true));
        assertThat(s.socketLb()).isEmpty();
        assertThat(s.socketLbCoverage()).isEmpty();
        assertThat(s.detail("Socket LB Protocols")).contains("TCP, UDP");
        assertThat(s.nodePort()).contains(new NodePort(true, Optional.of(new PortRange(30000, 32767))));
    }

    @Test
    void preOneFifteenPartialAndDisabled() {
        CiliumStatus partial = CiliumStatus.parse(Fixtures.read("status-pre-1.15-partial.txt"));
        CiliumStatus disabled = CiliumStatus.parse(Fixtures.read("status-pre-1.15-disabled-verbose.txt"));

        assertThat(partial.kubeProxyReplacement()).isEqualTo(KubeProxyReplacement.PARTIAL);
        assertThat(partial.kubeProxyReplacement().full()).isFalse();
        assertThat(partial.devices()).hasSize(1);
        assertThat(disabled.kubeProxyReplacement()).isEqualTo(KubeProxyReplacement.DISABLED);
        assertThat(disabled.devices()).isEmpty();
        assertThat(disabled.nodePort()).contains(new NodePort(false, Optional.empty()));
    }

    // FormatStatusResponse joins devices with ", " while it counts the deprecated Devices list, which can leave a
    // dangling separator; several devices are also possible.
    @Test
    void severalDevicesAndADanglingSeparator() {
        CiliumStatus s = CiliumStatus.parse(
                "KubeProxyReplacement:   True   [eth0 172.18.0.2 fc00:f853:ccd:e793::2 (Direct Routing), eth1 10.1.0.4, ]\n");

        assertThat(s.devices()).containsExactly(
                new Device("eth0", List.of("172.18.0.2", "fc00:f853:ccd:e793::2"), true),
                new Device("eth1", List.of("10.1.0.4"), false));
    }

    @Test
    void unknownModeIsAnErrorNamingTheLine() {
        String text = Fixtures.read("status-verbose.txt").replace("KubeProxyReplacement:   True", "KubeProxyReplacement:   Maybe");

        assertThatThrownBy(() -> CiliumStatus.parse(text))
                .isInstanceOf(CiliumParseException.class)
                .hasMessageStartingWith("cilium-dbg status line 4: unknown KubeProxyReplacement mode 'Maybe' (expected one of "
                        + "True, False, Strict, Partial, Probe, Disabled)")
                .hasMessageEndingWith("KubeProxyReplacement:   Maybe   [eth0 172.18.0.2 (Direct Routing)]");
    }

    @Test
    void malformedNodePortLineIsAnErrorNamingTheLine() {
        String text = Fixtures.read("status-verbose.txt").replace("Enabled (Range: 30000-32767)", "Enabled (30000 to 32767)");

        assertThatThrownBy(() -> CiliumStatus.parse(text))
                .isInstanceOf(CiliumParseException.class)
                .hasMessageContaining("line 52: expected 'Enabled (Range: <min>-<max>)' or 'Disabled' for NodePort")
                .hasMessageEndingWith("- NodePort:       Enabled (30000 to 32767)");
    }

    @Test
    void outputWithoutTheModeLineIsRefused() {
        assertThatThrownBy(() -> CiliumStatus.parse("Error: Get \"http://localhost/v1/healthz\": dial unix /var/run/cilium/cilium.sock\n"))
                .isInstanceOf(CiliumParseException.class)
                .hasMessageContaining("has no 'KubeProxyReplacement:' line")
                .hasMessageContaining("It starts with: Error: Get");
    }
}
