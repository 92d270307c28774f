package dev.chainreaction.scenario;

import dev.chainreaction.cluster.Cluster;
import dev.chainreaction.cluster.Node;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.cluster.Workloads;
import dev.chainreaction.fault.IptablesServiceRestart;
import dev.chainreaction.fault.KubeletStepInterposer;
import dev.chainreaction.fault.RestartExecutor;
import dev.chainreaction.fault.SavedRules;
import dev.chainreaction.fault.SystemdRestart;
import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.IptablesSave;
import dev.chainreaction.netfilter.KubeProxyChains;
import dev.chainreaction.netfilter.KubeletChains;
import dev.chainreaction.netfilter.NetfilterObject;
import dev.chainreaction.netfilter.RulesetDiff;
import dev.chainreaction.probe.ChainState;
import dev.chainreaction.probe.ChainTimeline;
import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.probe.KubeletInitVerdict;
import dev.chainreaction.probe.NodePortSampler;
import dev.chainreaction.probe.NpmDetection;
import dev.chainreaction.probe.cilium.CiliumAgent;
import dev.chainreaction.probe.cilium.CiliumDatapath;
import dev.chainreaction.report.Phase;
import dev.chainreaction.report.Timeline;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs scenarios on one booted cluster (a cell): resets the node to a healthy baseline, fires the fault at the
 * scenario's moment, observes for the window, and holds what it saw against the expectations.
 */
public final class ScenarioRunner {
    public static final int NODE_PORT = 30780;
    private static final Logger log = LoggerFactory.getLogger(ScenarioRunner.class);

    private final Cluster cluster;
    private final Node node;
    private final Backend backend;
    private final List<NetfilterObject> watched;
    private final Workloads lab;
    private final SavedRules.Snapshot bootSnapshot;
    private final KubeletStepInterposer interposer;
    private final RestartExecutor restarts;
    private final Shell curl;
    private String ghostUrl;
    private String nodePortUrl;
    private String webFrontend;
    private List<dev.chainreaction.netfilter.Ruleset.ChainRef> baseline = List.of();

    public ScenarioRunner(Cluster cluster) {
        this.cluster = cluster;
        this.node = cluster.node();
        this.backend = cluster.iptablesBackend();
        this.watched = Stream.concat(KubeletChains.ALL.stream(),
                cluster.runsKubeProxy() ? KubeProxyChains.CHAINS.stream() : Stream.<NetfilterObject>empty()).toList();
        this.lab = new Workloads(cluster.client(), "cca-dp");
        // What the node's iptables.service restores, saved before kubelet created any chain: "a snapshot taken earlier".
        this.bootSnapshot = new SavedRules.Snapshot(node.exec("cat", SystemdRestart.IP4SAVE).orThrow().stdout(),
                node.exec("cat", SystemdRestart.IP6SAVE).orThrow().stdout());
        this.interposer = cluster.installInterposer();
        this.restarts = cluster.iptablesRestart();
        this.curl = cluster.curlShell();
    }

    /** The lab's workloads, once per cluster: web behind a NodePort, and ghost without endpoints. */
    public void deployLab() {
        lab.createNamespace();
        lab.deployWeb(2);
        var web = lab.expose("web-np", "web", "NodePort", NODE_PORT);
        var ghost = lab.expose("ghost", "nothing-matches-this", "ClusterIP", 0);
        ghostUrl = "http://" + ghost.getSpec().getClusterIP() + "/";
        nodePortUrl = "http://" + node.ip() + ":" + NODE_PORT + "/";
        webFrontend = web.getSpec().getClusterIP() + ":80";
        Phase.await("the lab's NodePort answering on " + nodePortUrl, Duration.ofMinutes(1), Duration.ofMillis(500),
                () -> HttpSample.get(curl, nodePortUrl, Duration.ofSeconds(2)).ok(), () -> !node.isRunning(), "node container exited");
        // kubelet's and kube-proxy's chains on the healthy node, lab programmed: every reset must bring each back
        // (other owners', e.g. Cilium's, are theirs to restore, on their own schedule)
        baseline = IptablesSave.parse(node.exec(backend.save()).orThrow().stdout()).userChains().stream()
                .filter(c -> c.chain().startsWith("KUBE-")).toList();
        log.info("baseline for resets: {} user chains in {}", baseline.size(), backend.label());
    }

    /** The chain ids this cell watches: kubelet's always, kube-proxy's where it runs. */
    public Set<String> watchedIds() {
        return watched.stream().map(NetfilterObject::id).collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    }

    /**
     * Back to a healthy node: the saved rules restored, kube-proxy and kubelet restarted (interposer disarmed),
     * and proof that the reset is complete: every watched chain present and every user chain of the healthy
     * baseline (taken once the lab was programmed), kubelet's verdict "initialized" for this start, NodePort
     * answering, NPM detecting the node's backend.
     */
    public Duration reset() {
        long start = System.nanoTime();
        interposer.disarm();
        restarts.restart(new IptablesServiceRestart(backend, bootSnapshot, Duration.ZERO));
        Instant kubeletStart = Instant.now();
        cluster.resetUnits().forEach(node::restartService);
        Phase.await("node reset: kubelet initialised, every watched and baseline chain present, NodePort and NPM fine",
                Duration.ofMinutes(2), Duration.ofMillis(500), () -> {
                    if (KubeletInitVerdict.read(node.journal("kubelet", kubeletStart)).state() != KubeletInitVerdict.State.INITIALIZED) {
                        return false;
                    }
                    ChainState now = ChainState.observe(node, watched, List.of(backend));
                    return now.missing(backend, watched).isEmpty()
                            && now.rulesets().get(backend).userChains().containsAll(baseline)
                            && HttpSample.get(curl, nodePortUrl, Duration.ofSeconds(2)).ok()
                            && NpmDetection.run(node).detected().equals(Optional.of(backend));
                }, () -> !node.isRunning(), "node container exited");
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * One repetition. A run that cannot complete (a phase out of budget, the node gone) still gives a result: a
     * failed one, saying why, with what the node shows now as evidence.
     */
    public RunResult run(Scenario s, Cell cell, int repetition) {
        Instant start = Instant.now();
        try {
            return new Execution(s, cell, repetition).run();
        } catch (RuntimeException e) {
            log.error("{} on {} #{} did not complete", s.name(), cell.label(), repetition, e);
            Timeline t = new Timeline();
            t.add(start, "run", "started");
            t.add(Instant.now(), "run", "did not complete: " + e.getMessage());
            return new RunResult(s.name(), cell.label(), repetition, List.of("the run did not complete: " + e.getMessage()),
                    Map.of("runSeconds", seconds(Duration.between(start, Instant.now()))), t, evidenceNow(start), null);
        }
    }

    /** What the node shows now: its rules, kubelet's log since {@code since}, the interposer's record. */
    private Map<String, String> evidenceNow(Instant since) {
        Map<String, String> e = new LinkedHashMap<>();
        if (!node.isRunning()) {
            e.put("node", node.name() + " is not running");
            return e;
        }
        try {
            e.put("iptables-save now (" + backend.label() + ")", node.exec(backend.save()).stdout());
            e.put("kubelet log since the run started", node.journal("kubelet", since));
            e.put("interposer log", interposer.events().toString());
        } catch (RuntimeException ex) {
            e.put("evidence", "could not be read: " + ex.getMessage());
        }
        return e;
    }

    /** One repetition: its timeline, figures and evidence, filled as it goes. */
    private final class Execution {
        private final Scenario s;
        private final Cell cell;
        private final int repetition;
        private final Timeline timeline = new Timeline();
        private final Map<String, Object> figures = new LinkedHashMap<>();
        private final Map<String, String> evidence = new LinkedHashMap<>();
        private Instant kubeletStart;
        private Instant faultStart;
        private Instant faultEnd;

        Execution(Scenario s, Cell cell, int repetition) {
            this.s = s;
            this.cell = cell;
            this.repetition = repetition;
        }

        RunResult run() {
            long t0 = System.nanoTime();
            Map<String, Object> phases = new LinkedHashMap<>();
            figures.put("phaseSeconds", phases);
            phases.put("reset", seconds(reset()));
            String before = node.exec(backend.save()).stdout();
            evidence.put("iptables-save before (" + backend.label() + ")", before);
            Duration window = s.observeOrDefault().windowOrDefault();
            List<ChainState> states;
            List<HttpSample> nodePortSamples;
            List<HttpSample> noBackendSamples;
            try (NodePortSampler nodePort = new NodePortSampler(curl, nodePortUrl, s.observeOrDefault().sampleEveryOrDefault(), Duration.ofSeconds(1));
                 NodePortSampler noBackend = new NodePortSampler(curl, ghostUrl, Duration.ofSeconds(1), Duration.ofSeconds(3))) {
                long t1 = System.nanoTime();
                fire();
                phases.put("until fault", seconds(Duration.ofNanos(System.nanoTime() - t1)));
                long t2 = System.nanoTime();
                states = observeChains(window);
                phases.put("observe", seconds(Duration.ofNanos(System.nanoTime() - t2)));
                if (s.trigger().at() == Trigger.At.KUBELET_STEP) {
                    interposedCalls();
                }
                nodePortSamples = nodePort.samples();
                noBackendSamples = noBackend.samples();
            }
            long t3 = System.nanoTime();
            Observation o = new Observation(verdict(), npm(), ChainTimeline.of(backend, watched, states), faultStart, faultEnd,
                    window, nodePortSamples, noBackendSamples, cluster.runsCilium() ? Optional.of(ciliumChecks(s.expect().cilium())) : Optional.empty());
            record(o, before, states);
            List<String> notApplicable = new ArrayList<>();
            List<String> mismatches = Expectations.compare(s.expect(), o, watchedIds(), notApplicable);
            if (!notApplicable.isEmpty()) {
                figures.put("notApplicableHere", notApplicable);
            }
            evidence.put("timeline", timeline.render());
            phases.put("checks", seconds(Duration.ofNanos(System.nanoTime() - t3)));
            figures.put("runSeconds", seconds(Duration.ofNanos(System.nanoTime() - t0)));
            log.info("{} on {} #{}: {}", s.name(), cell.label(), repetition, mismatches.isEmpty() ? "PASSED" : "FAILED " + mismatches);
            return new RunResult(s.name(), cell.label(), repetition, mismatches, figures, timeline, evidence, o);
        }

        /** Fires the fault at the scenario's moment and notes its window. */
        private void fire() {
            Fault f = s.fault();
            boolean saveOnly = f.kind() == Fault.Kind.IPTABLES_SAVE_ONLY;
            IptablesServiceRestart restart = new IptablesServiceRestart(f.backendOrDefault(), savedRules(f), f.gapFor(repetition));
            figures.put("gapMillis", f.gapFor(repetition).toMillis());
            String command = saveOnly ? SystemdRestart.saveOnlyCommand(f.backendOrDefault()) : restarts.prepare(restart);
            String name = saveOnly ? "iptables_save without restart" : restart.describe();
            switch (s.trigger().at()) {
                case KUBELET_STEP -> fireAtKubeletStep(command);
                case AFTER_READY -> {
                    log.info("fault fires {} after readiness", Phase.human(s.trigger().delayOrDefault()));
                    sleep(s.trigger().delayOrDefault());
                    runNow(command, name);
                }
                case OFFSET -> {
                    long seed = s.trigger().seed() == null ? 0 : s.trigger().seed();
                    Duration offset = offset(seed, repetition, s.trigger().minOffsetOrDefault(), s.trigger().maxOffset());
                    figures.put("seed", seed);
                    figures.put("offsetMillis", offset.toMillis());
                    kubeletStart = Instant.now();
                    timeline.add(kubeletStart, "kubelet", "restart kubelet (fault at +" + offset.toMillis() + " ms, seed " + seed + ")");
                    restartKubeletNoWait();
                    sleep(offset);
                    runNow(command, name);
                }
            }
            figures.put("faultMillis", Duration.between(faultStart, faultEnd).toMillis());
        }

        private void fireAtKubeletStep(String command) {
            String step = Enums.label(s.trigger().step());
            interposer.arm(step, command + "\n");
            kubeletStart = Instant.now();
            timeline.add(kubeletStart, "kubelet", "restart kubelet (fault armed at step " + step + ")");
            node.restartService(kubeletUnit());
            Phase.await("kubelet reaches step " + step + " and the fault fires", Duration.ofSeconds(90), Duration.ofMillis(200),
                    interposer::fired, () -> !node.isRunning(), "node container exited");
            List<KubeletStepInterposer.InterposedEvent>[] events = new List[1];
            Phase.await("the fault's restart finishes (kubelet's iptables call waits for it)", Duration.ofSeconds(60), Duration.ofMillis(100),
                    () -> (events[0] = interposer.events()).stream().anyMatch(e -> e.kind().equals("fault-end")),
                    () -> !node.isRunning(), "node container exited");
            faultStart = events[0].stream().filter(e -> e.kind().equals("fault-start")).map(e -> e.start()).findFirst().orElseThrow();
            faultEnd = events[0].stream().filter(e -> e.kind().equals("fault-end")).map(e -> e.start()).findFirst().orElseThrow();
            evidence.put("fault output", interposer.faultOutput());
            if (s.trigger().thenRestartKubeletOrDefault()) {
                awaitVerdict(kubeletStart);
                kubeletStart = Instant.now();
                timeline.add(kubeletStart, "kubelet", "restart kubelet (heal)");
                node.restartService(kubeletUnit());
            }
        }

        /** Every iptables call kubelet made since the interposer was armed, on the timeline. */
        private void interposedCalls() {
            interposer.events().forEach(e -> timeline.add(e.start(), e.kind().startsWith("fault") ? "fault" : "iptables",
                    e.kind().equals("call") ? e.text() + " → exit " + e.exitCode() + " (" + e.took().toMillis() + " ms)" : e.kind() + " " + e.text()));
        }

        private void runNow(String command, String description) {
            faultStart = Instant.now();
            var r = node.exec("sh", "-c", command).orThrow();
            faultEnd = Instant.now();
            timeline.add(faultStart, "fault", "start: " + description);
            timeline.add(faultEnd, "fault", "end (" + Duration.between(faultStart, faultEnd).toMillis() + " ms, exit " + r.exitCode() + ")");
        }

        private List<ChainState> observeChains(Duration window) {
            Instant from = Instant.now();
            List<ChainState> states = new ArrayList<>();
            Phase.await("observation window of " + Phase.human(window) + " (sampling chains)", window.plusSeconds(30), Duration.ZERO,
                    () -> {
                        states.add(ChainState.observe(node, watched, List.of(backend)));
                        sleep(s.observeOrDefault().sampleEveryOrDefault());
                        return Duration.between(from, Instant.now()).compareTo(window) >= 0;
                    }, () -> !node.isRunning(), "node container exited");
            return states;
        }

        /** kubelet's verdict for its start in this run (after-ready: for its earlier start). */
        private KubeletInitVerdict verdict() {
            Instant since = kubeletStart != null ? kubeletStart : Instant.now().minus(Duration.ofMinutes(10));
            String kubeletLog = node.journal("kubelet", since);
            evidence.put("kubelet log (iptables lines)", kubeletLog.lines()
                    .filter(l -> l.contains("iptables") || l.contains("KUBE-")).collect(Collectors.joining("\n", "", "\n")));
            KubeletInitVerdict v = KubeletInitVerdict.read(kubeletLog);
            timeline.add(Instant.now(), "kubelet", "verdict: " + v.outcome() + (v.error().isEmpty() ? "" : " — " + String.join(" / ", v.error())));
            figures.put("kubeletInit", v.outcome());
            return v;
        }

        private NpmDetection.Verdict npm() {
            NpmDetection.Verdict npm = NpmDetection.run(node);
            evidence.put("NPM detection transcript", npm.log());
            timeline.add(Instant.now(), "npm", "detection: " + npm.outcome());
            figures.put("npm", npm.outcome());
            return npm;
        }

        /** The Cilium lab's checks, re-read now (never copied from earlier). */
        private Observation.CiliumObservation ciliumChecks(Expect.Cilium expect) {
            CiliumAgent agent = CiliumAgent.of(cluster.client());
            var status = agent.status();
            evidence.put("cilium-dbg service list", agent.services().toString());
            evidence.put("cilium-dbg bpf lb list", agent.lbList().toString());
            var path = CiliumDatapath.nodePort(node, curl, node.ip(), NODE_PORT, backend.save());
            List<CiliumDatapath.ServiceMapSync> scaling = new ArrayList<>();
            if (expect != null) {
                for (int replicas : expect.scaleTo()) {
                    scaling.add(CiliumDatapath.scaleAndCompare(cluster.client(), agent, lab.namespace(), "web", "web-np",
                            replicas, webFrontend, Workloads.WEB_PORT, expect.syncWithinOrDefault()));
                }
                if (!expect.scaleTo().isEmpty()) {
                    lab.deployWeb(2); // back to the lab's shape for the next scenario
                }
            }
            var c = new Observation.CiliumObservation(Optional.of(status.kubeProxyReplacement().full()),
                    agent.serviceNoBackendResponse().orElse("?"), path, scaling);
            figures.put("cilium", Map.of("kubeProxyReplacement", status.kubeProxyReplacement().printed(),
                    "serviceNoBackendResponse", c.serviceNoBackendResponse(), "nodePortServedByBpf", path.servedByBpf(),
                    "scaling", scaling.stream().map(x -> x.replicas() + " replicas: " + (x.matched() ? "matched after " + Phase.human(x.took()) : "no match")).toList()));
            return c;
        }

        /** Figures, evidence and timeline lanes from the observation. */
        private void record(Observation o, String before, List<ChainState> states) {
            Map<String, Object> recovery = new LinkedHashMap<>();
            for (NetfilterObject w : watched) {
                boolean lost = o.chains().samples().stream().anyMatch(x -> Boolean.FALSE.equals(x.present().get(w.id())));
                recovery.put(w.id(), !lost ? "never absent"
                        : o.chains().recoveredAfter(w.id(), faultEnd).map(d -> (Object) seconds(d)).orElse("never"));
            }
            figures.put("recoverySeconds", recovery);
            ChainState last = states.get(states.size() - 1);
            evidence.put("iptables-save after (" + backend.label() + ")", last.rulesets().get(backend).toSaveFormat());
            evidence.put("ruleset diff before → after", RulesetDiff.between(IptablesSave.parse(before), last.rulesets().get(backend)).render());
            chainLanes(o.chains());
            Duration outage = NodePortSampler.largestOutage(o.nodePort(), HttpSample::ok);
            figures.put("nodePortLargestOutageSeconds", seconds(outage));
            figures.put("nodePortSamples", o.nodePort().size());
            o.nodePort().forEach(x -> timeline.add(x.at(), "nodeport", x.ok() ? "200" : "down (curl exit " + x.curlExit() + ")"));
            o.noBackend().forEach(x -> timeline.add(x.at(), "no-backend", "curl exit " + x.curlExit() + " in " + x.time().toMillis() + " ms"
                    + (x.curlExit() == 0 ? " — answered HTTP " + x.httpCode() + ": " + x.body().strip().lines().findFirst().orElse("") : "")));
            Map<Integer, Long> exits = new TreeMap<>();
            o.noBackend().forEach(x -> exits.merge(x.curlExit(), 1L, Long::sum));
            figures.put("noBackendCurlExits", exits);
            List<HttpSample> outside = Expectations.outsideFlushWindow(o);
            // inside the flush window: by what answered; exit 0 means the request left the node (nothing rejected
            // or DNATed it) and something beyond answered
            Map<String, Long> inside = new TreeMap<>();
            o.noBackend().stream().filter(x -> !outside.contains(x)).forEach(x -> inside.merge(x.curlExit() == 0
                    ? "exit 0 (HTTP " + x.httpCode() + " from off the node)" : "exit " + x.curlExit(), 1L, Long::sum));
            figures.put("noBackendInsideWindow", inside);
        }

        private void chainLanes(ChainTimeline chains) {
            Map<String, Boolean> last = new LinkedHashMap<>();
            for (ChainTimeline.Sample sample : chains.samples()) {
                sample.present().forEach((id, present) -> {
                    if (!present.equals(last.get(id))) {
                        timeline.add(sample.at(), "chain", id + (present ? " present" : " ABSENT"));
                        last.put(id, present);
                    }
                });
            }
        }
    }

    /** The unit that runs kubelet: kubelet itself, or the k3s process that embeds it. */
    private String kubeletUnit() {
        return cluster.resetUnits().contains("k3s") ? "k3s" : "kubelet";
    }

    private void restartKubeletNoWait() {
        if (kubeletUnit().equals("kubelet")) {
            node.exec("systemctl", "restart", "--no-block", "kubelet").orThrow();
        } else {
            Thread t = new Thread(() -> node.restartService(kubeletUnit()), "restart " + kubeletUnit());
            t.setDaemon(true);
            t.start();
        }
    }

    private KubeletInitVerdict awaitVerdict(Instant since) {
        KubeletInitVerdict[] v = new KubeletInitVerdict[1];
        Phase.await("kubelet's iptables verdict", Duration.ofSeconds(60), Duration.ofMillis(500),
                () -> (v[0] = KubeletInitVerdict.read(node.journal("kubelet", since))).state() != KubeletInitVerdict.State.PENDING,
                () -> !node.isRunning(), "node container exited");
        return v[0];
    }

    private SavedRules savedRules(Fault f) {
        return switch (f.savedRulesOrDefault()) {
            case SNAPSHOT_NOW -> new SavedRules.SnapshotNow();
            case SNAPSHOT_EARLIER -> bootSnapshot;
            case DISTRIBUTION_DEFAULT -> new SavedRules.DistributionDefault();
        };
    }

    /** The offset of one repetition: the same seed and repetition give the same offset on every machine. */
    static Duration offset(long seed, int repetition, Duration min, Duration max) {
        // the repetition-th draw of one seeded sequence: seeds next to each other (seed + repetition) give
        // java.util.Random first draws close together, which bunched a whole sweep into a few hundred ms
        Random random = new Random(seed);
        double draw = 0;
        for (int i = 0; i < repetition; i++) {
            draw = random.nextDouble();
        }
        long span = max.toMillis() - min.toMillis();
        return Duration.ofMillis(min.toMillis() + (long) (draw * span));
    }

    static double seconds(Duration d) {
        return Math.round(d.toMillis() / 100.0) / 10.0;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
