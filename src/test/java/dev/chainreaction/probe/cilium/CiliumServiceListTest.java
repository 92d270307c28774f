package dev.chainreaction.probe.cilium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chainreaction.probe.cilium.CiliumServiceList.Backend;
import dev.chainreaction.probe.cilium.CiliumServiceList.Service;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CiliumServiceListTest {
    // service-list.json: []*models.Service through command.PrintOutput (json.MarshalIndent, "  "); go-swagger models
    // declare fields alphabetically, so keys come in that order; backend fields as a 1.16+ agent prints them
    // (nodeName, preferred, protocol, state, weight), flags with the traffic policies; realized = spec.
    static final String LIST = Fixtures.read("service-list.json");

    @Test
    void clusterIpFrontendWithIdBackendsAndFlags() {
        CiliumServiceList list = CiliumServiceList.parse(LIST);

        assertThat(list.services()).hasSize(8);
        Service web = list.withFrontend("10.43.12.7:80").get(0);
        assertThat(web.id()).isEqualTo(5);
        assertThat(web.frontend()).isEqualTo(new CiliumServiceList.Frontend("10.43.12.7", 80, "TCP", "external"));
        assertThat(web.flags()).isEqualTo(new CiliumServiceList.Flags("ClusterIP", "web", "cca-dp"));
        assertThat(web.backendAddresses()).containsExactly("10.42.0.15:8080", "10.42.0.23:8080");
        assertThat(web.backends()).extracting(Backend::state).containsExactly("active", "terminating");
        assertThat(web.backends().get(0).nodeName()).contains("crx-k3s-4c1d2e");
        assertThat(web.realized()).isTrue();
    }

    @Test
    void ghostHasAFrontendAndNoBackends() {
        Service ghost = CiliumServiceList.parse(LIST).of("cca-dp", "ghost").get(0);

        assertThat(ghost.frontend().address()).isEqualTo("10.43.200.9:80");
        assertThat(ghost.backends()).isEmpty();
    }

    @Test
    void nodePortHasTheWildcardAndOneFrontendPerNodeAddress() {
        CiliumServiceList list = CiliumServiceList.parse(LIST);

        assertThat(list.of("cca-dp", "web-np")).extracting(s -> s.frontend().ip(), s -> s.flags().type())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("0.0.0.0", "NodePort"),
                        org.assertj.core.groups.Tuple.tuple("172.18.0.2", "NodePort"));
        assertThat(list.withFrontend("10.43.0.10:53")).hasSize(2);
        assertThat(list.withFrontend("10.43.0.10:53/udp")).singleElement()
                .satisfies(s -> assertThat(s.frontend().protocol()).isEqualTo("UDP"));
        assertThat(list.withFrontend("10.43.0.1:443").get(0).backends().get(0).nodeName()).isEqualTo(Optional.empty());
    }

    // An agent whose spec was not realized yet prints no status; a nil backend list marshals as null.
    @Test
    void unrealizedServiceAndNullBackends() {
        Service s = CiliumServiceList.parse("""
                [{"spec": {"backend-addresses": null, "flags": {"type": "ClusterIP", "name": "x", "namespace": "y"},
                  "frontend-address": {"ip": "10.43.1.1", "port": 80, "protocol": "TCP", "scope": "external"}, "id": 9}}]
                """).services().get(0);

        assertThat(s.realized()).isFalse();
        assertThat(s.backends()).isEmpty();
        assertThat(s.id()).isEqualTo(9);
    }

    @Test
    void malformedInputIsAnError() {
        assertThatThrownBy(() -> CiliumServiceList.parse("[{\"spec\": {\"id\": 1,,}}]"))
                .isInstanceOf(CiliumParseException.class)
                .hasMessageStartingWith("cilium-dbg service list -o json: not JSON (")
                .hasMessageContaining("at line 1, column");
        assertThatThrownBy(() -> CiliumServiceList.parse("{\"spec\": {}}"))
                .hasMessage("cilium-dbg service list -o json: expected a JSON array of services, got object");
        assertThatThrownBy(() -> CiliumServiceList.parse("[{\"spec\": {\"id\": 4}}]"))
                .hasMessage("cilium-dbg service list -o json: service #0 (id 4) has no frontend-address");
        assertThatThrownBy(() -> CiliumServiceList.parse(
                "[{\"spec\": {\"id\": 4, \"frontend-address\": {\"ip\": \"10.43.1.1\", \"port\": 80}, \"backend-addresses\": [{\"port\": 80}]}}]"))
                .hasMessageStartingWith("cilium-dbg service list -o json: service #0 (10.43.1.1:80) has a backend without ip");
    }
}
