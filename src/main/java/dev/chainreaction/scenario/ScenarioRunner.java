package dev.chainreaction.scenario;

import dev.chainreaction.cluster.Cluster;
import dev.chainreaction.cluster.Node;
import dev.chainreaction.cluster.Workloads;
import dev.chainreaction.fault.FaultRecord;
import dev.chainreaction.fault.IptablesServiceRestart;
import dev.chainreaction.fault.KubeletStepInterposer;
import dev.chainreaction.fault.SavedRules;
import dev.chainreaction.fault.SystemdRestart;
import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.KubeProxyChains;
import dev.chainreaction.netfilter.KubeletChains;
import dev.chainreaction.netfilter.NetfilterObject;
import dev.chainreaction.probe.ChainState;
import dev.chainreaction.probe.ChainTimeline;
import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.probe.KubeletInitVerdict;
import dev.chainreaction.probe.NodePortSampler;
import dev.chainreaction.probe.NpmDetection;
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
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs scenarios on one booted cluster (a cell): resets the node to a healthy baseline, fires the fault at the
 * scenario's moment, observes for the window, and compares what it saw with the expectations.
 */
public final class ScenarioRunner {
    public static final int NODE_PORT = 30780;
    private static final Logger log = LoggerFactory.getLogger(ScenarioRunner.class);
    private static final Backend BACKEND = Backend.NFT;
    static final List<NetfilterObject> WATCHED = Stream.concat(KubeletChains.ALL.stream(), KubeProxyChains.CHAINS.stream()).toList();

    private final Cluster cluster;
    private final Node node;
    private final Workloads lab;
    private final SavedRules.Snapshot bootSnapshot;
    private final KubeletStepInterposer interposer;
    private String ghostUrl;
    private String nodePortUrl;

    public ScenarioRunner(Cluster cluster) {
        this.cluster = cluster;
        this.node = cluster.node();
        this.lab = new Workloads(cluster.client(), "cca-dp");
        // What the node restored at boot, before kubelet created any chain: "a snapshot taken earlier".
        this.bootSnapshot = new SavedRules.Snapshot(node.exec("cat", SystemdRestart.IP4SAVE).orThrow().stdout(),
                node.exec("cat", SystemdRestart.IP6SAVE).orThrow().stdout());
        this.interposer = KubeletStepInterposer.install(node);
    }

    /** The lab's workloads, once per cluster: web behind a NodePort, and ghost without endpoints. */
    public void deployLab() {
        lab.createNamespace();
        lab.deployWeb(2);
        lab.expose("web-np", "web", "NodePort", NODE_PORT);
        var ghost = lab.expose("ghost", "nothing-matches-this", "ClusterIP", 0);
        ghostUrl = "http://" + ghost.getSpec().getClusterIP() + "/";
        nodePortUrl = "http://" + node.ip() + ":" + NODE_PORT + "/";
    }

    /**
     * Back to a healthy node: the boot ruleset restored, kube-proxy and kubelet restarted (interposer disarmed), and
     * proof that the reset is complete — every kubelet and kube-proxy chain present, kubelet's verdict
     * "initialized" for this start, NodePort answering, NPM detecting nft.
     */
    public Duration reset() {
        long start = System.nanoTime();
        interposer.disarm();
        new SystemdRestart(node).restart(new IptablesServiceRestart(BACKEND, bootSnapshot, Duration.ZERO));
        node.restartService("kube-proxy");
        Instant kubeletStart = Instant.now();
        node.restartService("kubelet");
        Phase.await("node reset: kubelet initialised and every chain present", Duration.ofMinutes(2), Duration.ofMillis(500),
                () -> KubeletInitVerdict.read(node.journal("kubelet", kubeletStart)).state() == KubeletInitVerdict.State.INITIALIZED
                        && ChainState.observe(node, WATCHED, List.of(BACKEND)).missing(BACKEND, WATCHED).isEmpty()
                        && HttpSample.get(node, nodePortUrl, Duration.ofSeconds(2)).ok()
                        && NpmDetection.run(node).detected().equals(Optional.of(BACKEND)),
                () -> !node.isRunning(), "node container exited");
        return Duration.ofNanos(System.nanoTime() - start);
    }

    public RunResult run(Scenario s, Cell cell, int repetition) {
        Timeline timeline = new Timeline();
        Map<String, Object> figures = new LinkedHashMap<>();
        Map<String, String> evidence = new LinkedHashMap<>();
        figures.put("resetSeconds", seconds(reset()));
        String before = node.exec(BACKEND.save()).stdout();
        evidence.put("iptables-save before (" + BACKEND.label() + ")", before);

        Instant observeFrom;
        Instant kubeletStart = null;
        FaultRecord fault = null;
        Fault f = s.fault();
        IptablesServiceRestart restart = new IptablesServiceRestart(f.backendOrDefault(), savedRules(f), f.gapOrDefault());
        String faultCommand = f.kind() == Fault.Kind.IPTABLES_SAVE_ONLY
                ? SystemdRestart.saveOnlyCommand(f.backendOrDefault()) : new SystemdRestart(node).prepare(restart);
        String faultName = f.kind() == Fault.Kind.IPTABLES_SAVE_ONLY ? "iptables_save without restart" : restart.describe();

        try (NodePortSampler nodePort = new NodePortSampler(node, nodePortUrl, s.observeOrDefault().sampleEveryOrDefault(), Duration.ofSeconds(1));
             NodePortSampler noBackend = new NodePortSampler(node, ghostUrl, Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            switch (s.trigger().at()) {
                case KUBELET_STEP -> {
                    String step = Enums.label(s.trigger().step());
                    interposer.arm(step, faultCommand + "\n");
                    kubeletStart = Instant.now();
                    timeline.add(kubeletStart, "kubelet", "systemctl restart kubelet (fault armed at step " + step + ")");
                    node.restartService("kubelet");
                    Phase.await("kubelet reaches step " + step + " and the fault fires", Duration.ofSeconds(90), Duration.ofMillis(200),
                            interposer::fired, () -> !node.isRunning(), "node container exited");
                    if (s.trigger().thenRestartKubeletOrDefault()) {
                        awaitVerdict(kubeletStart);
                        timeline.add(Instant.now(), "kubelet", "systemctl restart kubelet (heal)");
                        kubeletStart = Instant.now();
                        node.restartService("kubelet");
                    }
                }
                case AFTER_READY -> {
                    log.info("fault fires {} after readiness", Phase.human(s.trigger().delayOrDefault()));
                    sleep(s.trigger().delayOrDefault());
                    fault = runNow(faultCommand, faultName);
                }
                case OFFSET -> {
                    long seed = s.trigger().seed() == null ? 0 : s.trigger().seed();
                    Duration offset = offset(seed, repetition, s.trigger().minOffsetOrDefault(), s.trigger().maxOffset());
                    figures.put("seed", seed);
                    figures.put("offsetMillis", offset.toMillis());
                    kubeletStart = Instant.now();
                    timeline.add(kubeletStart, "kubelet", "systemctl restart kubelet (fault at +" + offset.toMillis() + " ms, seed " + seed + ")");
                    node.exec("systemctl", "restart", "--no-block", "kubelet").orThrow();
                    sleep(offset);
                    fault = runNow(faultCommand, faultName);
                }
            }
            observeFrom = Instant.now();
            List<ChainState> states = new ArrayList<>();
            Duration window = s.observeOrDefault().windowOrDefault();
            Phase.await("observation window of " + Phase.human(window) + " (sampling chains)", window.plusSeconds(30), Duration.ZERO,
                    () -> {
                        states.add(ChainState.observe(node, WATCHED, List.of(BACKEND)));
                        sleep(s.observeOrDefault().sampleEveryOrDefault());
                        return Duration.between(observeFrom, Instant.now()).compareTo(window) >= 0;
                    }, () -> !node.isRunning(), "node container exited");
            ChainTimeline chains = ChainTimeline.of(BACKEND, WATCHED, states);
            List<String> mismatches = new ArrayList<>();

            // The fault window: from the interposer (kubelet-step) or the executor.
            Instant faultEnd;
            if (s.trigger().at() == Trigger.At.KUBELET_STEP) {
                interposer.events().forEach(e -> timeline.add(e.start(), e.kind().startsWith("fault") ? "fault" : "iptables",
                        e.kind().equals("call") ? e.text() + " → exit " + e.exitCode() + " (" + e.took().toMillis() + " ms)" : e.kind() + " " + e.text()));
                faultEnd = interposer.events().stream().filter(e -> e.kind().equals("fault-end")).map(e -> e.start()).findFirst().orElse(observeFrom);
                evidence.put("fault output", interposer.faultOutput());
            } else {
                timeline.add(fault.started(), "fault", "start: " + fault.description());
                timeline.add(fault.ended(), "fault", "end (" + fault.duration().toMillis() + " ms)");
                faultEnd = fault.ended();
            }
            figures.put("faultMillis", s.trigger().at() == Trigger.At.KUBELET_STEP ? interposer.events().stream()
                    .filter(e -> e.kind().startsWith("fault")).map(e -> e.start()).reduce((a, b) -> b)
                    .map(end -> Duration.between(interposer.events().stream().filter(e -> e.kind().equals("fault-start"))
                            .map(e -> e.start()).findFirst().orElse(end), end).toMillis()).orElse(0L) : fault.duration().toMillis());

            // kubelet's verdict for the start in this run (or for its earlier start, after-ready).
            Instant verdictSince = kubeletStart != null ? kubeletStart : Instant.now().minus(Duration.ofMinutes(10));
            String kubeletLog = node.journal("kubelet", verdictSince);
            KubeletInitVerdict verdict = KubeletInitVerdict.read(kubeletLog);
            evidence.put("kubelet log (iptables lines)", kubeletLog.lines()
                    .filter(l -> l.contains("iptables") || l.contains("KUBE-")).reduce("", (a, b) -> a + b + "\n"));
            timeline.add(Instant.now(), "kubelet", "verdict: " + verdict.outcome() + (verdict.error().isEmpty() ? "" : " — " + String.join(" / ", verdict.error())));
            figures.put("kubeletInit", verdict.outcome());
            if (s.expect().kubeletInit() != null && !verdict.outcome().equals(Enums.label(s.expect().kubeletInit()))) {
                mismatches.add("kubelet's iptables initialisation: expected " + Enums.label(s.expect().kubeletInit()) + ", was " + verdict.outcome());
            }

            NpmDetection.Verdict npm = NpmDetection.run(node);
            evidence.put("NPM detection transcript", npm.log());
            timeline.add(Instant.now(), "npm", "detection: " + npm.outcome());
            figures.put("npm", npm.outcome());
            if (s.expect().npm() != null && !npm.outcome().equals(Enums.label(s.expect().npm()))) {
                mismatches.add("NPM detection: expected " + Enums.label(s.expect().npm()) + ", was " + npm.outcome());
            }

            Map<String, Object> recovery = new LinkedHashMap<>();
            for (NetfilterObject o : WATCHED) {
                Optional<Duration> back = chains.recoveredAfter(o.id(), faultEnd);
                recovery.put(o.id(), back.map(d -> (Object) seconds(d)).orElse("never"));
            }
            figures.put("recoverySeconds", recovery);
            s.expect().chains().forEach((id, exp) -> {
                Optional<Duration> back = chains.recoveredAfter(id, faultEnd);
                if (exp.expectsNever() && back.isPresent()) {
                    mismatches.add(id + ": expected never back within " + Phase.human(window) + ", back after " + Phase.human(back.get()));
                } else if (!exp.expectsNever() && (back.isEmpty() || back.get().compareTo(exp.within()) > 0)) {
                    mismatches.add(id + ": expected back within " + Phase.human(exp.within()) + ", "
                            + back.map(d -> "back after " + Phase.human(d)).orElse("never back within " + Phase.human(window)));
                }
            });
            states.stream().skip(Math.max(0, states.size() - 1)).findFirst().ifPresent(last ->
                    evidence.put("iptables-save after (" + BACKEND.label() + ")", last.rulesets().get(BACKEND).toSaveFormat()));
            evidence.put("ruleset diff before → after", dev.chainreaction.netfilter.RulesetDiff.between(
                    dev.chainreaction.netfilter.IptablesSave.parse(before), states.get(states.size() - 1).rulesets().get(BACKEND)).render());
            chainLanes(chains, timeline);

            List<HttpSample> np = nodePort.samples();
            Duration outage = NodePortSampler.largestOutage(np, HttpSample::ok);
            figures.put("nodePortLargestOutageSeconds", seconds(outage));
            figures.put("nodePortSamples", np.size());
            np.forEach(x -> timeline.add(x.at(), "nodeport", x.ok() ? "200" : "down (curl exit " + x.curlExit() + ")"));
            if (s.expect().nodePort() != null && outage.compareTo(s.expect().nodePort().maxOutage()) > 0) {
                mismatches.add("NodePort largest outage " + Phase.human(outage) + " exceeds " + Phase.human(s.expect().nodePort().maxOutage()));
            }

            List<HttpSample> nb = noBackend.samples();
            nb.forEach(x -> timeline.add(x.at(), "no-backend", "curl exit " + x.curlExit() + " in " + x.time().toMillis() + " ms"));
            Map<Integer, Long> exits = new java.util.TreeMap<>();
            nb.forEach(x -> exits.merge(x.curlExit(), 1L, Long::sum));
            figures.put("noBackendCurlExits", exits);
            if (s.expect().noBackend() != null) {
                Expect.NoBackend e = s.expect().noBackend();
                List<HttpSample> outside = nb.stream().filter(x -> x.at().isBefore(faultEnd.minusSeconds(1)) || x.at().isAfter(faultEnd.plusSeconds(35))).toList();
                List<HttpSample> wrong = outside.stream().filter(x -> x.curlExit() != e.curlExit()
                        || (e.maxTime() != null && x.time().compareTo(e.maxTime()) > 0)).toList();
                figures.put("noBackendInsideWindow", nb.stream().filter(x -> !outside.contains(x)).map(x -> x.curlExit() + "/" + x.time().toMillis() + "ms").toList());
                if (outside.isEmpty()) {
                    mismatches.add("no no-backend sample before or after the fault window");
                } else if (!wrong.isEmpty()) {
                    mismatches.add("no-backend response outside the fault window: expected curl exit " + e.curlExit()
                            + (e.maxTime() == null ? "" : " within " + Phase.human(e.maxTime())) + ", got " + wrong.size()
                            + " other: e.g. exit " + wrong.get(0).curlExit() + " in " + wrong.get(0).time().toMillis() + " ms");
                }
            }
            evidence.put("timeline", timeline.render());
            log.info("{} on {} #{}: {}", s.name(), cell.label(), repetition, mismatches.isEmpty() ? "PASSED" : "FAILED " + mismatches);
            return new RunResult(s.name(), cell.label(), repetition, mismatches, figures, timeline, evidence);
        }
    }

    private void chainLanes(ChainTimeline chains, Timeline timeline) {
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

    private KubeletInitVerdict awaitVerdict(Instant since) {
        KubeletInitVerdict[] v = new KubeletInitVerdict[1];
        Phase.await("kubelet's iptables verdict", Duration.ofSeconds(60), Duration.ofMillis(500),
                () -> (v[0] = KubeletInitVerdict.read(node.journal("kubelet", since))).state() != KubeletInitVerdict.State.PENDING,
                () -> !node.isRunning(), "node container exited");
        return v[0];
    }

    private FaultRecord runNow(String command, String description) {
        Instant started = Instant.now();
        var r = node.exec("sh", "-c", command).orThrow();
        return new FaultRecord(description, node.name(), started, Instant.now(), List.of(r));
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
        long span = max.toMillis() - min.toMillis();
        long ms = min.toMillis() + (long) (new Random(seed + 31L * repetition).nextDouble() * span);
        return Duration.ofMillis(ms);
    }

    private static double seconds(Duration d) {
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
