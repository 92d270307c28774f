package dev.chainreaction.probe.cilium;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CiliumDatapathTest {
    /** /proc/net/tcp as the kernel prints it (include/net/tcp.h states: 0A LISTEN, 01 ESTABLISHED). */
    static final String PROC_NET_TCP = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 00000000:2A12 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 21371 1 0000000000000000 100 0 0 10 0
               1: 0100007F:277D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 21399 1 0000000000000000 100 0 0 10 0
               2: 0A2A0005:783C 0A2A0006:9E1C 01 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000000000000 20 4 30 10 -1
            """;

    @Test
    void listenersAreListeningSocketsOnThePortOnly() {
        assertThat(CiliumDatapath.listeners(PROC_NET_TCP, 10770)).containsExactly("00000000:2A12");
        assertThat(CiliumDatapath.listeners(PROC_NET_TCP, 10109)).containsExactly("0100007F:277D");
        assertThat(CiliumDatapath.listeners(PROC_NET_TCP, 30780)).as("0x783C = 30780 but ESTABLISHED, not LISTEN").isEmpty();
    }
}
