package dev.chainreaction.report;

import dev.chainreaction.netfilter.KubeProxyChains;
import dev.chainreaction.netfilter.KubeletChains;
import dev.chainreaction.netfilter.NetfilterObject;
import dev.chainreaction.probe.ChainTimeline;
import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.scenario.Observation;
import dev.chainreaction.scenario.RunResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** One run as a picture: the fault window, a lane per chain, kubelet's and NPM's verdicts, every probe sample. */
public final class RunPicture {
    private static final Map<String, NetfilterObject> OBJECTS = Stream.concat(KubeletChains.ALL.stream(), KubeProxyChains.CHAINS.stream())
            .collect(Collectors.toMap(NetfilterObject::id, Function.identity(), (a, b) -> a));
    private static final List<String> MARKER_LANES = List.of("kubelet", "fault", "iptables", "npm");

    private RunPicture() {
    }

    public static TimelineChart of(RunResult r) {
        List<Timeline.Event> events = r.timeline().events();
        Observation o = r.observation();
        Instant t0 = events.isEmpty() ? o.faultStart() : events.get(0).at();
        Instant end = events.isEmpty() ? o.faultEnd() : events.get(events.size() - 1).at();
        String title = r.scenario() + " on " + r.cell() + " #" + r.repetition() + " — " + (r.passed() ? "PASSED" : "FAILED")
                + " (chains in " + o.chains().backend().label() + ")";
        List<TimelineChart.Window> windows = List.of(new TimelineChart.Window(o.faultStart(), o.faultEnd(), "systemctl restart iptables"));
        return new TimelineChart(title, t0, end, windows, lanes(o.chains()), markers(events), List.of(
                probe("NodePort", o.nodePort(), s -> s.ok(), s -> s.ok() ? "200" : "down: curl exit " + s.curlExit()),
                probe("no-backend", o.noBackend(), s -> s.curlExit() == 7 && s.time().toMillis() < 1000 || s.curlExit() == 28,
                        s -> "curl exit " + s.curlExit() + " in " + s.time().toMillis() + " ms")));
    }

    /** A lane per chain or rule, named as iptables-save shows it; two ids for one chain (kubelet's and kube-proxy's KUBE-FIREWALL) share a lane. */
    private static List<TimelineChart.Lane> lanes(ChainTimeline chains) {
        Map<String, TimelineChart.Lane> lanes = new java.util.LinkedHashMap<>();
        for (String id : chains.ids()) {
            NetfilterObject obj = OBJECTS.get(id);
            String name = obj == null ? id : obj.table() + " " + describe(obj);
            lanes.putIfAbsent(name, new TimelineChart.Lane(name, chains.samples().stream().filter(s -> s.present().containsKey(id))
                    .map(s -> new TimelineChart.Presence(s.at(), s.present().get(id))).toList()));
        }
        return List.copyOf(lanes.values());
    }

    private static String describe(NetfilterObject o) {
        return o instanceof NetfilterObject.RuleObject rule ? rule.chain() + "→" + rule.target() : o.chain();
    }

    private static List<TimelineChart.Marker> markers(List<Timeline.Event> events) {
        return events.stream().filter(e -> MARKER_LANES.contains(e.lane()))
                .sorted(Comparator.comparing((Timeline.Event e) -> MARKER_LANES.indexOf(e.lane())).thenComparing(Timeline.Event::at))
                .map(e -> new TimelineChart.Marker(e.at(), e.lane(), e.text(), kind(e))).toList();
    }

    static TimelineChart.Marker.Kind kind(Timeline.Event e) {
        String t = e.text();
        if (t.startsWith("verdict: failed") || t.equals("detection: fails") || t.matches(".*→ exit [1-9]\\d* .*")) {
            return TimelineChart.Marker.Kind.BAD;
        }
        if (t.startsWith("verdict: initialized") || t.startsWith("detection: nft") || t.startsWith("detection: legacy")) {
            return TimelineChart.Marker.Kind.GOOD;
        }
        return TimelineChart.Marker.Kind.INFO;
    }

    private static TimelineChart.Probe probe(String name, List<HttpSample> samples, java.util.function.Predicate<HttpSample> ok,
                                             Function<HttpSample, String> label) {
        return new TimelineChart.Probe(name, samples.stream().map(s -> new TimelineChart.Sample(s.at(), ok.test(s), label.apply(s))).toList());
    }
}
