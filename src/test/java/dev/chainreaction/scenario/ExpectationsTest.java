package dev.chainreaction.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.probe.ChainTimeline;
import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.probe.KubeletInitVerdict;
import dev.chainreaction.probe.NpmDetection;
import dev.chainreaction.probe.cilium.CiliumDatapath;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExpectationsTest {
    static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    static final Instant FAULT_START = T0.plusSeconds(10);
    static final Instant FAULT_END = T0.plusMillis(10_300);

    /** hint absent from the fault on; proxy/firewall back 5 s after it. */
    static ChainTimeline chains() {
        List<ChainTimeline.Sample> samples = new ArrayList<>();
        for (int s = 0; s <= 60; s += 5) {
            Instant at = T0.plusSeconds(s);
            boolean afterFault = at.isAfter(FAULT_START);
            samples.add(new ChainTimeline.Sample(at, Map.of("hint", !afterFault,
                    "proxy/firewall", !afterFault || !at.isBefore(FAULT_END.plusSeconds(5)))));
        }
        return new ChainTimeline(Backend.NFT, List.of("hint", "proxy/firewall"), samples);
    }

    static HttpSample sample(int second, int exit, long millis) {
        return new HttpSample(T0.plusSeconds(second), "node", "http://x/", exit, exit == 0 ? 200 : 0, Duration.ofMillis(millis), "");
    }

    static Observation observation(List<HttpSample> nodePort, List<HttpSample> noBackend, Optional<Observation.CiliumObservation> cilium) {
        return new Observation(new KubeletInitVerdict(KubeletInitVerdict.State.FAILED, KubeletInitVerdict.FAILED, List.of("exit status 2")),
                new NpmDetection.Verdict(Optional.empty(), List.of()), chains(), FAULT_START, FAULT_END, Duration.ofSeconds(50),
                nodePort, noBackend, cilium);
    }

    static Expect expect(Map<String, Expect.Recovery> chains, Expect.NodePort nodePort, Expect.NoBackend noBackend, Expect.Cilium cilium) {
        return new Expect(Expect.KubeletInit.FAILED, Expect.NpmOutcome.FAILS, chains, nodePort, noBackend, cilium);
    }

    @Test
    void theIncidentAsExpectedHasNoMismatch() {
        Expect e = expect(Map.of("hint", new Expect.Recovery(null, true), "proxy/firewall", new Expect.Recovery(Duration.ofSeconds(35), null)),
                null, null, null);
        assertThat(Expectations.compare(e, observation(List.of(), List.of(), Optional.empty()), Set.of("hint", "proxy/firewall"), new ArrayList<>()))
                .isEmpty();
    }

    @Test
    void eachWrongOutcomeIsNamedWithWhatWasSeen() {
        Expect e = new Expect(Expect.KubeletInit.INITIALIZED, Expect.NpmOutcome.NFT,
                Map.of("hint", new Expect.Recovery(Duration.ofSeconds(70), null), "proxy/firewall", new Expect.Recovery(Duration.ofSeconds(2), null)),
                null, null, null);
        List<String> m = Expectations.compare(e, observation(List.of(), List.of(), Optional.empty()), Set.of("hint", "proxy/firewall"), new ArrayList<>());
        assertThat(m).containsExactlyInAnyOrder(
                "kubelet's iptables initialisation: expected initialized, was failed (exit status 2)",
                "NPM detection: expected nft, was fails",
                "hint: expected back within 1m10s, never back within 50s",
                "proxy/firewall: expected back within 2.0s, back after 9.7s"); // first sample at or after the restore + 5 s
    }

    @Test
    void chainsThisCellDoesNotWatchAreListedNotJudged() {
        List<String> notApplicable = new ArrayList<>();
        Expect e = expect(Map.of("proxy/firewall", new Expect.Recovery(Duration.ofSeconds(1), null)), null, null, null);
        assertThat(Expectations.compare(e, observation(List.of(), List.of(), Optional.empty()), Set.of("hint"), notApplicable)).isEmpty();
        assertThat(notApplicable).containsExactly("proxy/firewall");
    }

    @Test
    void nodePortOutageIsTheLongestRunOfFailures() {
        List<HttpSample> np = List.of(sample(9, 0, 5), sample(10, 7, 5), sample(11, 7, 5), sample(12, 7, 5), sample(13, 0, 5));
        Expect tight = expect(Map.of(), new Expect.NodePort(Duration.ofSeconds(2)), null, null);
        Expect loose = expect(Map.of(), new Expect.NodePort(Duration.ofSeconds(5)), null, null);
        assertThat(Expectations.compare(tight, observation(np, List.of(), Optional.empty()), Set.of(), new ArrayList<>()))
                .singleElement().asString().startsWith("NodePort largest outage");
        assertThat(Expectations.compare(loose, observation(np, List.of(), Optional.empty()), Set.of(), new ArrayList<>())).isEmpty();
    }

    @Test
    void noBackendSamplesInsideTheFlushWindowAreMeasuredNotJudged() {
        List<HttpSample> nb = List.of(sample(5, 7, 2), sample(12, 0, 3), sample(20, 28, 3000), sample(50, 7, 2));
        Observation o = observation(List.of(), nb, Optional.empty());
        Expect e = expect(Map.of(), null, new Expect.NoBackend(7, Duration.ofSeconds(1)), null);
        assertThat(Expectations.compare(e, o, Set.of(), new ArrayList<>())).isEmpty();
        assertThat(Expectations.outsideFlushWindow(o)).extracting(HttpSample::at).containsExactly(T0.plusSeconds(5), T0.plusSeconds(50));

        List<HttpSample> slowAfter = List.of(sample(5, 7, 2), sample(50, 7, 1500));
        assertThat(Expectations.compare(e, observation(List.of(), slowAfter, Optional.empty()), Set.of(), new ArrayList<>()))
                .singleElement().asString().contains("expected curl exit 7 within 1.0s, got 1 of 2 other: e.g. exit 7 in 1500 ms");
        assertThat(Expectations.compare(e, observation(List.of(), List.of(sample(20, 7, 2)), Optional.empty()), Set.of(), new ArrayList<>()))
                .containsExactly("no no-backend sample before or after the fault window");
    }

    @Test
    void ciliumChecksNameWhatServedTheNodePortAndTheMapsThatDiffered() {
        HttpSample ok = sample(30, 0, 3);
        var served = new CiliumDatapath.NodePortPath(30780, ok, List.of(), List.of());
        var viaIptables = new CiliumDatapath.NodePortPath(30780, ok, List.of("-A KUBE-NODEPORTS -p tcp --dport 30780 -j KUBE-EXT-X"), List.of());
        var synced = new CiliumDatapath.ServiceMapSync(4, "10.43.0.10:80", true, Duration.ofSeconds(3), List.of("a", "b", "c", "d"), List.of("a", "b", "c", "d"));
        var stale = new CiliumDatapath.ServiceMapSync(2, "10.43.0.10:80", false, Duration.ofSeconds(60), List.of("a", "b", "c"), List.of("a", "b"));
        Expect e = expect(Map.of(), null, null, new Expect.Cilium(true, true, List.of(4, 2), null));

        var good = new Observation.CiliumObservation(Optional.of(true), "reject", served, List.of(synced));
        assertThat(Expectations.compare(e, observation(List.of(), List.of(), Optional.of(good)), Set.of(), new ArrayList<>())).isEmpty();

        var bad = new Observation.CiliumObservation(Optional.of(false), "reject", viaIptables, List.of(synced, stale));
        assertThat(Expectations.compare(e, observation(List.of(), List.of(), Optional.of(bad)), Set.of(), new ArrayList<>()))
                .hasSize(3).anySatisfy(m -> assertThat(m).startsWith("Cilium KubeProxyReplacement: expected True"))
                .anySatisfy(m -> assertThat(m).contains("iptables lines [-A KUBE-NODEPORTS"))
                .anySatisfy(m -> assertThat(m).contains("at 2 replicas did not match").contains("BPF backends [a, b, c], ready endpoints [a, b]"));
        assertThat(Expectations.compare(e, observation(List.of(), List.of(), Optional.empty()), Set.of(), new ArrayList<>()))
                .containsExactly("cilium expectations on a cell without Cilium");
    }
}
