package dev.chainreaction.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.probe.ChainTimeline;
import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.probe.KubeletInitVerdict;
import dev.chainreaction.probe.NpmDetection;
import dev.chainreaction.scenario.Observation;
import dev.chainreaction.scenario.RunResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunPictureTest {
    static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void aRunBecomesAFaultWindowALanePerChainVerdictMarkersAndProbeRows() {
        Timeline timeline = new Timeline();
        timeline.add(T0, "kubelet", "restart kubelet (fault armed at step output-jump)");
        timeline.add(T0.plusMillis(1600), "iptables", "iptables -w 5 -W 100000 -C OUTPUT -t filter -j KUBE-FIREWALL → exit 2 (633 ms)");
        timeline.add(T0.plusSeconds(95), "kubelet", "verdict: failed — exit status 2");
        timeline.add(T0.plusSeconds(96), "npm", "detection: fails");
        var chains = new ChainTimeline(Backend.NFT, List.of("hint", "proxy/firewall"), List.of(
                new ChainTimeline.Sample(T0.plusSeconds(2), Map.of("hint", false, "proxy/firewall", false)),
                new ChainTimeline.Sample(T0.plusSeconds(5), Map.of("hint", false, "proxy/firewall", true))));
        var np = List.of(new HttpSample(T0.plusSeconds(3), "node", "u", 7, 0, Duration.ofMillis(2), ""));
        var o = new Observation(new KubeletInitVerdict(KubeletInitVerdict.State.FAILED, "", List.of()),
                new NpmDetection.Verdict(Optional.empty(), List.of()), chains, T0.plusMillis(1600), T0.plusMillis(2233),
                Duration.ofSeconds(90), np, List.of(), Optional.empty());
        var r = new RunResult("kubelet-init-race", "node-image/kube-proxy", 1, List.of(), Map.of(), timeline, Map.of(), o);

        TimelineChart chart = RunPicture.of(r);

        assertThat(chart.title()).isEqualTo("kubelet-init-race on node-image/kube-proxy #1 — PASSED (chains in nft)");
        assertThat(chart.faultWindows()).singleElement().satisfies(w -> assertThat(w.end()).isEqualTo(T0.plusMillis(2233)));
        assertThat(chart.chainLanes()).extracting(TimelineChart.Lane::name)
                .containsExactly("mangle KUBE-IPTABLES-HINT", "filter KUBE-FIREWALL");
        assertThat(chart.markers()).extracting(TimelineChart.Marker::kind).containsExactly(TimelineChart.Marker.Kind.INFO,
                TimelineChart.Marker.Kind.BAD, TimelineChart.Marker.Kind.BAD, TimelineChart.Marker.Kind.BAD);
        assertThat(chart.probes()).extracting(TimelineChart.Probe::name).containsExactly("NodePort", "no-backend");
        assertThat(chart.svg()).contains("KUBE-IPTABLES-HINT").contains("down: curl exit 7");
    }
}
