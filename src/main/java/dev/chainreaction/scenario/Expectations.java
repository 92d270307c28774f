package dev.chainreaction.scenario;

import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.probe.NodePortSampler;
import dev.chainreaction.probe.cilium.CiliumDatapath;
import dev.chainreaction.report.Phase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A scenario's expectations held against what a run observed. Pure: the same observation gives the same
 * mismatches. Each mismatch says what was expected and what was seen, in words a person acts on.
 */
public final class Expectations {
    /** No-backend samples this close after the fault belong to its flush window: measured, not judged. */
    static final Duration FLUSH_WINDOW_GRACE = Duration.ofSeconds(35);

    private Expectations() {
    }

    /**
     * @param watched the chain ids this cell watches (kube-proxy's are absent where Cilium replaces it); an
     *                expectation for any other id is skipped and listed in {@code notApplicable}
     */
    public static List<String> compare(Expect expect, Observation o, Set<String> watched, List<String> notApplicable) {
        List<String> mismatches = new ArrayList<>();
        if (expect.kubeletInit() != null && !o.kubeletInit().outcome().equals(Enums.label(expect.kubeletInit()))) {
            mismatches.add("kubelet's iptables initialisation: expected " + Enums.label(expect.kubeletInit()) + ", was "
                    + o.kubeletInit().outcome() + (o.kubeletInit().error().isEmpty() ? "" : " (" + String.join(" / ", o.kubeletInit().error()) + ")"));
        }
        if (expect.npm() != null && !o.npm().outcome().equals(Enums.label(expect.npm()))) {
            mismatches.add("NPM detection: expected " + Enums.label(expect.npm()) + ", was " + o.npm().outcome());
        }
        expect.chains().forEach((id, exp) -> {
            if (!watched.contains(id)) {
                notApplicable.add(id);
                return;
            }
            chainMismatch(id, exp, o).ifPresent(mismatches::add);
        });
        if (expect.nodePort() != null) {
            Duration outage = NodePortSampler.largestOutage(o.nodePort(), HttpSample::ok);
            if (o.nodePort().isEmpty()) {
                mismatches.add("no NodePort sample was taken");
            } else if (outage.compareTo(expect.nodePort().maxOutage()) > 0) {
                mismatches.add("NodePort largest outage " + Phase.human(outage) + " exceeds " + Phase.human(expect.nodePort().maxOutage()));
            }
        }
        if (expect.noBackend() != null) {
            noBackendMismatch(expect.noBackend(), o).ifPresent(mismatches::add);
        }
        if (expect.cilium() != null) {
            mismatches.addAll(cilium(expect.cilium(), o));
        }
        return mismatches;
    }

    static Optional<String> chainMismatch(String id, Expect.Recovery exp, Observation o) {
        Optional<Duration> back = o.chains().recoveredAfter(id, o.faultEnd());
        if (exp.expectsNever() && back.isPresent()) {
            return Optional.of(id + ": expected never back within " + Phase.human(o.window()) + ", back after " + Phase.human(back.get()));
        }
        if (!exp.expectsNever() && (back.isEmpty() || back.get().compareTo(exp.within()) > 0)) {
            return Optional.of(id + ": expected back within " + Phase.human(exp.within()) + ", "
                    + back.map(d -> "back after " + Phase.human(d)).orElse("never back within " + Phase.human(o.window())));
        }
        return Optional.empty();
    }

    /** Samples before the fault and after its flush window must all answer as expected; those inside are reported. */
    static Optional<String> noBackendMismatch(Expect.NoBackend e, Observation o) {
        List<HttpSample> outside = outsideFlushWindow(o);
        List<HttpSample> wrong = outside.stream().filter(x -> x.curlExit() != e.curlExit()
                || (e.maxTime() != null && x.time().compareTo(e.maxTime()) > 0)).toList();
        if (outside.isEmpty()) {
            return Optional.of("no no-backend sample before or after the fault window");
        }
        if (!wrong.isEmpty()) {
            return Optional.of("no-backend response outside the fault window: expected curl exit " + e.curlExit()
                    + (e.maxTime() == null ? "" : " within " + Phase.human(e.maxTime())) + ", got " + wrong.size()
                    + " of " + outside.size() + " other: e.g. exit " + wrong.get(0).curlExit() + " in " + wrong.get(0).time().toMillis() + " ms");
        }
        return Optional.empty();
    }

    static List<HttpSample> outsideFlushWindow(Observation o) {
        return o.noBackend().stream().filter(x -> x.at().plus(x.time()).isBefore(o.faultStart())
                || x.at().isAfter(o.faultEnd().plus(FLUSH_WINDOW_GRACE))).toList();
    }

    static List<String> cilium(Expect.Cilium e, Observation o) {
        if (o.cilium().isEmpty()) {
            return List.of("cilium expectations on a cell without Cilium");
        }
        Observation.CiliumObservation c = o.cilium().get();
        List<String> mismatches = new ArrayList<>();
        if (Boolean.TRUE.equals(e.kubeProxyReplacement()) && !c.kubeProxyReplacement().orElse(false)) {
            mismatches.add("Cilium KubeProxyReplacement: expected True, status says " + c.kubeProxyReplacement().map(String::valueOf).orElse("nothing"));
        }
        if (Boolean.TRUE.equals(e.nodePortServedByBpf()) && !c.nodePort().servedByBpf()) {
            CiliumDatapath.NodePortPath p = c.nodePort();
            mismatches.add("NodePort " + p.port() + " not served by eBPF alone: HTTP " + p.answer().httpCode() + " (curl exit "
                    + p.answer().curlExit() + "), iptables lines " + p.iptablesLines() + ", listening sockets " + p.listeners());
        }
        for (CiliumDatapath.ServiceMapSync s : c.scaling()) {
            if (!s.matched()) {
                mismatches.add("BPF Service map for " + s.frontend() + " at " + s.replicas() + " replicas did not match the EndpointSlice within "
                        + Phase.human(e.syncWithinOrDefault()) + ": BPF backends " + s.bpfBackends() + ", ready endpoints " + s.readyEndpoints());
            }
        }
        return mismatches;
    }
}
