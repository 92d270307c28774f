package dev.chainreaction.probe.cilium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chainreaction.probe.cilium.BpfLbList.BackendSlot;
import dev.chainreaction.probe.cilium.BpfLbList.Frontend;
import dev.chainreaction.probe.cilium.BpfLbList.Layout;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BpfLbListTest {
    // bpf-lb-list-per-slot.txt: cilium-dbg/cmd/bpf_lb_list.go dumpSVC + helpers.go TablePrinter (tabwriter 5, 0, 3),
    // with pkg/loadbalancer/maps Service4Key.String() "ip:port/PROTO (slot)" (1.18): one map key, one row, per slot.
    static final String PER_SLOT = Fixtures.read("bpf-lb-list-per-slot.txt");
    // bpf-lb-list-grouped.txt: the same with pkg/maps/lbmap's serviceKey() "ip:port/PROTO" (no slot): all slots of
    // a service under one key, continuation rows with an empty first column.
    static final String GROUPED = Fixtures.read("bpf-lb-list-grouped.txt");
    // bpf-lb-list-grouped-noproto.txt: older lbmap, key "ip:port", entries without "/PROTO", one "backend N not found".
    static final String GROUPED_NO_PROTO = Fixtures.read("bpf-lb-list-grouped-noproto.txt");

    @Test
    void rowPerSlotLayoutGivesTheServiceSlotAndBackendsOfAFrontend() {
        BpfLbList lb = BpfLbList.parse(PER_SLOT);

        assertThat(lb.layout()).isEqualTo(Layout.ROW_PER_SLOT);
        assertThat(lb.frontends()).hasSize(8);
        Frontend web = lb.frontend("10.43.12.7:80").orElseThrow();
        assertThat(web.address()).isEqualTo("10.43.12.7:80/TCP");
        assertThat(web.service()).hasValueSatisfying(s -> {
            assertThat(s.revNat()).isEqualTo(5);
            assertThat(s.type()).isEqualTo("ClusterIP");
            assertThat(s.flags()).containsExactly("ClusterIP", "non-routable");
        });
        assertThat(lb.backendsOf("10.43.12.7:80")).containsExactly(
                new BackendSlot(1, "10.42.0.15", 8080, Optional.of("TCP"), 5),
                new BackendSlot(2, "10.42.0.23", 8080, Optional.of("TCP"), 5));
    }

    @Test
    void aServiceWithoutBackendsHasOnlySlotZero() {
        for (String text : List.of(PER_SLOT, GROUPED, GROUPED_NO_PROTO)) {
            Frontend ghost = BpfLbList.parse(text).frontend("10.43.200.9:80").orElseThrow();

            assertThat(ghost.service()).hasValueSatisfying(s -> assertThat(s.revNat()).isEqualTo(8));
            assertThat(ghost.backends()).isEmpty();
        }
    }

    @Test
    void groupedLayoutReadsTheSameServicesAsRowPerSlot() {
        BpfLbList grouped = BpfLbList.parse(GROUPED);

        assertThat(grouped.layout()).isEqualTo(Layout.GROUPED);
        assertThat(backendsByFrontend(grouped)).isEqualTo(backendsByFrontend(BpfLbList.parse(PER_SLOT)));
        // here slot 0 is printed last: order of the rows must not matter
        Frontend nodePort = grouped.frontend("0.0.0.0:30780").orElseThrow();
        assertThat(nodePort.service()).hasValueSatisfying(s -> assertThat(s.flags()).containsExactly("NodePort", "non-routable"));
        assertThat(nodePort.backends()).extracting(BackendSlot::address).containsExactly("10.42.0.15:8080", "10.42.0.23:8080");
        assertThat(grouped.frontend("172.18.0.2:30780").orElseThrow().service())
                .hasValueSatisfying(s -> assertThat(s.flags()).containsExactly("NodePort"));
    }

    @Test
    void samePortOverTwoProtocolsNeedsTheProtocol() {
        BpfLbList lb = BpfLbList.parse(PER_SLOT);

        assertThatThrownBy(() -> lb.frontend("10.43.0.10:53"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("frontend 10.43.0.10:53 is ambiguous, name the protocol: [10.43.0.10:53/UDP, 10.43.0.10:53/TCP]");
        assertThat(lb.backendsOf("10.43.0.10:53/UDP")).containsExactly(new BackendSlot(1, "10.42.0.3", 53, Optional.of("UDP"), 2));
        assertThat(lb.backendsOf("10.43.0.10:9153")).extracting(BackendSlot::revNat).containsExactly(4);
    }

    @Test
    void olderEntriesWithoutProtocolAndAMissingBackend() {
        BpfLbList lb = BpfLbList.parse(GROUPED_NO_PROTO);

        assertThat(lb.frontends()).hasSize(7);
        assertThat(lb.frontends()).allSatisfy(f -> assertThat(f.protocol()).isEmpty());
        assertThat(lb.backendsOf("10.43.0.10:53")).containsExactly(new BackendSlot(1, "10.42.0.3", 53, Optional.empty(), 2));
        Frontend metrics = lb.frontend("10.43.0.10:9153/TCP").orElseThrow();
        assertThat(metrics.backends()).hasSize(1);
        assertThat(metrics.missing()).containsExactly(new BpfLbList.MissingBackend(OptionalInt.empty(), 12));
        assertThat(lb.frontend("10.43.99.99:80")).isEmpty();
        assertThat(lb.backendsOf("10.43.99.99:80")).isEmpty();
    }

    @Test
    void ipv6AndInternalScopeKeys() {
        BpfLbList lb = BpfLbList.parse("""
                SERVICE ADDRESS              BACKEND ADDRESS (REVNAT_ID) (SLOT)
                [fd00:10:43::7]:80/TCP (0)   [::]:0 (9) (0) [ClusterIP, non-routable]\s
                [fd00:10:43::7]:80/TCP (1)   [fd00:10:42::15]:8080/TCP (9) (1)
                10.43.5.5:80/TCP/i (1)       10.42.0.15:8080/TCP (10) (1)
                """);

        assertThat(lb.backendsOf("[fd00:10:43::7]:80")).extracting(BackendSlot::address).containsExactly("[fd00:10:42::15]:8080");
        assertThat(lb.frontend("10.43.5.5:80")).isEmpty();
        assertThat(lb.frontend("10.43.5.5:80/TCP/i")).hasValueSatisfying(f -> assertThat(f.internalScope()).isTrue());
    }

    // Slots come in BPF map order; backends are returned in slot order all the same.
    @Test
    void backendsAreInSlotOrderWhateverTheRowOrder() {
        BpfLbList lb = BpfLbList.parse("""
                SERVICE ADDRESS     BACKEND ADDRESS (REVNAT_ID) (SLOT)
                10.43.12.7:80/TCP   10.42.0.23:8080/TCP (5) (2)\s
                                    0.0.0.0:0 (5) (0) [ClusterIP, non-routable]\s
                                    10.42.0.15:8080/TCP (5) (1)\s
                """);

        assertThat(lb.backendsOf("10.43.12.7:80")).extracting(BackendSlot::slot, BackendSlot::address)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "10.42.0.15:8080"),
                        org.assertj.core.groups.Tuple.tuple(2, "10.42.0.23:8080"));
    }

    @Test
    void malformedRowsAreErrorsNamingTheLine() {
        assertThatThrownBy(() -> BpfLbList.parse(PER_SLOT.replace("172.18.0.2:6443/TCP (1) (1)", "172.18.0.2:6443/TCP weight=1")))
                .isInstanceOf(CiliumParseException.class)
                .hasMessageStartingWith("cilium-dbg bpf lb list line 3: not a slot entry")
                .hasMessageEndingWith("10.43.0.1:443/TCP (1)      172.18.0.2:6443/TCP weight=1");
        assertThatThrownBy(() -> BpfLbList.parse(PER_SLOT.replace("10.43.0.1:443/TCP (1)  ", "10.43.0.1:443/TCP (4)  ")))
                .hasMessageStartingWith("cilium-dbg bpf lb list line 3: the key says slot 4 but the entry says slot 1");
        assertThatThrownBy(() -> BpfLbList.parse("ID   BACKEND ID\n1    5\n"))
                .hasMessageStartingWith("cilium-dbg bpf lb list line 1: expected the header");
        assertThatThrownBy(() -> BpfLbList.parse("SERVICE ADDRESS   BACKEND ADDRESS (REVNAT_ID) (SLOT)\n   10.42.0.3:53 (2) (1)\n"))
                .hasMessageStartingWith("cilium-dbg bpf lb list line 2: continuation row before any service address");
        assertThatThrownBy(() -> BpfLbList.parse(""))
                .hasMessage("cilium-dbg bpf lb list output is empty (not even its header)");
    }

    private static Map<String, List<String>> backendsByFrontend(BpfLbList lb) {
        return lb.frontends().stream().collect(Collectors.toMap(Frontend::address,
                f -> f.backends().stream().map(b -> b.slot() + " " + b.address()).toList()));
    }
}
