package dev.chainreaction.probe.cilium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chainreaction.probe.cilium.BpfCtList.Direction;
import dev.chainreaction.probe.cilium.BpfCtList.Entry;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class BpfCtListTest {
    // bpf-ct-list-global.txt: CtKey{4,6}Global.Dump (" SVC "/" IN "/" OUT ", IPv6 bracketed, "related ") + the 1.16-1.18
    // CtEntry value format (BackendID since PR #32563, before NatPort was added in PR #43017), one Println per map.
    static final String MODERN = Fixtures.read("bpf-ct-list-global.txt");
    // bpf-ct-list-global-pre-1.15.txt: before PR #28913 service entries are "OUT <frontend> -> <client> service" and the
    // value has RxPackets/RxBytes/.../IfIndex.
    static final String PRE_1_15 = Fixtures.read("bpf-ct-list-global-pre-1.15.txt");

    @Test
    void socketLbLeavesOnlyTheBackendInConntrack() {
        BpfCtList ct = BpfCtList.parse(MODERN);

        assertThat(ct.entries()).hasSize(8);
        assertThat(ct.fromSourcePort(40404)).extracting(Entry::direction, Entry::destinationAddress)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Direction.OUT, "10.42.0.15:8080"),
                        org.assertj.core.groups.Tuple.tuple(Direction.IN, "10.42.0.15:8080"));
        assertThat(ct.to("10.43.12.7:80")).isEmpty();
        Entry out = ct.fromSourcePort(40404).get(0);
        assertThat(out.sourceAddress()).isEqualTo("10.42.0.30:40404");
        assertThat(out.expires()).isEqualTo(21813);
        assertThat(out.sourceSecurityId()).isEqualTo(OptionalLong.of(38423));
        assertThat(out.ctFlags()).containsExactly("SeenNonSyn");
        assertThat(out.field("Flags")).contains("0x0010");
    }

    @Test
    void serviceEntryRecordsTheFrontendAndTheChosenBackend() {
        Entry svc = BpfCtList.parse(MODERN).inDirection(Direction.SVC).get(0);

        assertThat(svc.protocol()).isEqualTo("TCP");
        assertThat(svc.sourceAddress()).isEqualTo("172.18.0.1:51234");
        assertThat(svc.destinationAddress()).isEqualTo("172.18.0.2:30780");
        assertThat(svc.revNat()).isEqualTo(OptionalInt.of(7));
        assertThat(svc.backendId()).isEqualTo(OptionalLong.of(3));
        assertThat(svc.ctFlags()).containsExactly("RxClosing", "TxClosing", "SeenNonSyn");
        assertThat(svc.line()).isEqualTo(3);
    }

    @Test
    void relatedWordIpv6AndOtherMaps() {
        BpfCtList ct = BpfCtList.parse(MODERN);

        Entry icmp = ct.entries().stream().filter(e -> e.protocol().equals("ICMP")).findFirst().orElseThrow();
        assertThat(icmp.words()).containsExactly("related");
        assertThat(icmp.ctFlags()).isEmpty();
        Entry v6 = ct.entries().get(7);
        assertThat(v6.source()).isEqualTo("fd00:10:42::30");
        assertThat(v6.sourcePort()).isEqualTo(40418);
        assertThat(v6.destinationAddress()).isEqualTo("[fd00:10:42::15]:8080");
    }

    @Test
    void preOneFifteenServiceEntryIsTurnedIntoTheSvcLayout() {
        BpfCtList ct = BpfCtList.parse(PRE_1_15);

        Entry svc = ct.inDirection(Direction.SVC).get(0);
        assertThat(svc.sourceAddress()).isEqualTo("172.18.0.1:51234");
        assertThat(svc.destinationAddress()).isEqualTo("172.18.0.2:30780");
        assertThat(svc.words()).containsExactly("service");
        assertThat(svc.revNat()).isEqualTo(OptionalInt.of(7));
        assertThat(svc.backendId()).isEmpty();
        assertThat(svc.field("IfIndex")).contains("0");
        assertThat(svc.field("RxPackets")).contains("0");
        assertThat(ct.inDirection(Direction.OUT)).hasSize(5);
        assertThat(ct.inDirection(Direction.IN)).hasSize(1);
    }

    // IPv6 without brackets, as the agent of issue cilium/cilium#40820 printed it (a Dump before brackets were added).
    @Test
    void unbracketedIpv6TakesThePortAfterTheLastColon() {
        Entry e = BpfCtList.parse("TCP IN 2a00:23c8:bcb:5101::33a4:47224 -> fd85:ee78:d8a6:8607::1:fe5:8000 expires=26562518 "
                + "Packets=0 Bytes=0 RxFlagsSeen=0x1b LastRxReport=26562514 TxFlagsSeen=0x1b LastTxReport=26562514 "
                + "Flags=0x0013 [ RxClosing TxClosing SeenNonSyn ] RevNAT=0 SourceSecurityID=10 BackendID=0\n").entries().get(0);

        assertThat(e.source()).isEqualTo("2a00:23c8:bcb:5101::33a4");
        assertThat(e.sourcePort()).isEqualTo(47224);
        assertThat(e.destination()).isEqualTo("fd85:ee78:d8a6:8607::1:fe5");
        assertThat(e.destinationPort()).isEqualTo(8000);
    }

    @Test
    void unknownFieldsAndNotesAreCarried() {
        Entry e = BpfCtList.parse("UDP OUT 10.42.0.30:45678 -> 10.42.0.3:53 expires=271 (remaining: 58 sec(s)) Packets=0 "
                + "Flags=0x0000 [ ] RevNAT=0 SourceSecurityID=38423 BackendID=0 NatPort=0 Zone=eu-1\n").entries().get(0);

        assertThat(e.field("NatPort")).contains("0");
        assertThat(e.field("Zone")).contains("eu-1");
        assertThat(e.field("expires.note")).contains("remaining: 58 sec(s)");
        assertThat(e.expires()).isEqualTo(271);
    }

    @Test
    void malformedLinesAreErrorsNamingTheLine() {
        assertThatThrownBy(() -> BpfCtList.parse(MODERN.replace("TCP SVC", "TCP SIDEWAYS")))
                .isInstanceOf(CiliumParseException.class)
                .hasMessageStartingWith("cilium-dbg bpf ct list global line 3: expected '<PROTO> <IN|OUT|SVC> <src>:<port> -> ")
                .hasMessageContaining(": TCP SIDEWAYS 172.18.0.1:51234");
        assertThatThrownBy(() -> BpfCtList.parse("TCP OUT 10.0.0.1:1 -> 10.0.0.2:2 expires=soon RevNAT=0\n"))
                .hasMessageStartingWith("cilium-dbg bpf ct list global line 1: expires is not a number: 'soon'");
        assertThatThrownBy(() -> BpfCtList.parse("\nTCP OUT 10.0.0.1:1 -> 10.0.0.2:2 RevNAT=0\n"))
                .hasMessageStartingWith("cilium-dbg bpf ct list global line 2: no expires= field");
        assertThatThrownBy(() -> BpfCtList.parse("TCP OUT 10.0.0.1 -> 10.0.0.2:2 expires=1\n"))
                .hasMessageStartingWith("cilium-dbg bpf ct list global line 1: not an address:port: 10.0.0.1");
    }
}
