package dev.chainreaction.probe.cilium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CiliumConfigTest {
    // config-all*.txt: cilium-dbg/cmd/config.go printConfigurations(-a) + helpers.go dumpConfig: "%-34s: %v" for the
    // DaemonConfigurationMap (option.Config through JSON: DaemonConfig field names, numbers as float64), map values
    // as a name line and "\t%-26s: %s" entries, then k8s-*, then the read-write options as Enabled/Disabled.
    @Test
    void serviceNoBackendResponseIsReadEitherWay() {
        assertThat(CiliumConfig.parse(Fixtures.read("config-all.txt")).serviceNoBackendResponse()).contains("reject");
        assertThat(CiliumConfig.parse(Fixtures.read("config-all-drop.txt")).serviceNoBackendResponse()).contains("drop");
    }

    @Test
    void optionsByFieldOrFlagNameAndMapEntries() {
        CiliumConfig c = CiliumConfig.parse(Fixtures.read("config-all.txt"));

        assertThat(c.get("service-no-backend-response")).contains("reject");
        assertThat(c.get("KubeProxyReplacement")).contains("true");
        assertThat(c.get("IPAM")).contains("kubernetes");
        assertThat(c.get("NodePortMin")).contains("30000");
        assertThat(c.get("Devices")).contains("[eth0]");
        assertThat(c.get("ExtraConfig.bpf-lb-sock")).contains("Enabled");
        assertThat(c.get("k8s-configuration")).contains("");
        assertThat(c.get("k8s-endpoint")).contains("https://172.18.0.2:6443");
        assertThat(c.get("MonitorAggregationLevel")).contains("Medium");
        assertThat(c.get("PolicyEnforcement")).contains("default");
        // a map option with no entries is only its name: it names no option of its own
        assertThat(c.get("FixedIdentityMapping")).isEmpty();
        assertThat(c.get("TunnelProtocol")).contains("vxlan");
    }

    @Test
    void anAgentWithoutTheOptionSaysNothing() {
        CiliumConfig c = CiliumConfig.parse("##### Read-write configurations #####\nDebug                             : Disabled\n");

        assertThat(c.serviceNoBackendResponse()).isEmpty();
        assertThat(c.get("debug")).contains("Disabled");
    }

    @Test
    void malformedLinesAreErrorsNamingTheLine() {
        assertThatThrownBy(() -> CiliumConfig.parse("#### Read-only configurations ####\nAgentHealthPort : 9879\nnot an option line\n"))
                .isInstanceOf(CiliumParseException.class)
                .hasMessage("cilium-dbg config -a line 3: expected '<Option> : <value>': not an option line");
        assertThatThrownBy(() -> CiliumConfig.parse("AgentHealthPort : 9879\n\tstray                     : 1\n"))
                .hasMessageStartingWith("cilium-dbg config -a line 2: indented line outside a map-valued option");
        assertThatThrownBy(() -> CiliumConfig.parse("#### Read-only configurations ####\n"))
                .hasMessage("cilium-dbg config -a printed no options; it starts with: #### Read-only configurations ####");
    }
}
