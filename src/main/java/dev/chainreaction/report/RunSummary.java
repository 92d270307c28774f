package dev.chainreaction.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.chainreaction.scenario.RunResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The run's summary: the matrix (scenario × cell) with verdict and key figures, every cell that did not run with
 * its reason, and timings. Written as reports/&lt;run-id&gt;/summary.md (for a person) and summary.json (for tools).
 */
public final class RunSummary {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final String runId;
    private final Path dir;
    private final Instant started = Instant.now();
    private final List<RunResult> results = new ArrayList<>();
    private final List<NotRun> notRun = new ArrayList<>();
    private final Map<String, String> phases = new LinkedHashMap<>();
    private Instant firstVerdict;
    private final Map<String, Instant> firstVerdictOf = new LinkedHashMap<>();

    public record NotRun(String scenario, String cell, String reason) {
    }

    public RunSummary(Path reportsDir) {
        this.runId = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(started);
        this.dir = reportsDir.resolve(runId);
    }

    public Path dir() {
        return dir;
    }

    public synchronized void add(RunResult r) {
        if (firstVerdict == null) {
            firstVerdict = Instant.now();
        }
        firstVerdictOf.putIfAbsent(r.scenario(), Instant.now());
        results.add(r);
        Path runDir = dir.resolve(runPath(r));
        write(runDir.resolve("timeline.txt"), r.timeline().render());
        write(runDir.resolve("timeline.json"), r.timeline().toJson());
        if (r.observation() != null) {
            write(runDir.resolve("timeline.svg"), RunPicture.of(r).svg());
        }
        r.evidence().forEach((name, text) -> write(runDir.resolve(name.replaceAll("[^A-Za-z0-9.-]+", "_") + ".txt"), text));
    }

    public synchronized void notRun(String scenario, String cell, String reason) {
        notRun.add(new NotRun(scenario, cell, reason));
    }

    public synchronized void phase(String name, Duration took) {
        phases.put(name, Phase.human(took));
    }

    /** Writes summary.md and summary.json and returns the path of summary.md. */
    public synchronized Path write() {
        Instant now = Instant.now();
        Map<String, List<RunResult>> byCell = results.stream().collect(Collectors.groupingBy(
                r -> r.scenario() + " " + r.cell(), LinkedHashMap::new, Collectors.toList()));
        StringBuilder md = new StringBuilder("# chainreaction run ").append(runId).append("\n\n");
        long passed = byCell.values().stream().filter(l -> l.stream().allMatch(RunResult::passed)).count();
        Set<String> notRunCells = notRun.stream().map(n -> n.scenario() + " " + n.cell()).collect(Collectors.toCollection(LinkedHashSet::new));
        md.append(String.format("**%d of %d scenario cells passed**; %d did not run. Suite time %s",
                passed, byCell.size(), notRunCells.size(), Phase.human(Duration.between(started, now))));
        if (firstVerdict != null) {
            md.append(", first verdict after ").append(Phase.human(Duration.between(started, firstVerdict)));
        }
        md.append(".\n\n| scenario | cell | verdict | runs | key figures |\n|---|---|---|---|---|\n");
        byCell.forEach((key, runs) -> {
            RunResult first = runs.get(0);
            long ok = runs.stream().filter(RunResult::passed).count();
            String verdict = ok == runs.size() ? "PASSED" : "**FAILED**";
            md.append("| ").append(first.scenario()).append(" | ").append(first.cell()).append(" | ").append(verdict)
                    .append(" | ").append(ok).append("/").append(runs.size()).append(" passed | ").append(keyFigures(runs)).append(" |\n");
        });
        Set<String> listed = new LinkedHashSet<>();
        List<String> reasons = notRun.stream().map(NotRun::reason).distinct().toList();
        notRun.stream().filter(n -> listed.add(n.scenario() + " " + n.cell())).forEach(n -> md.append("| ").append(n.scenario())
                .append(" | ").append(n.cell()).append(" | NOT RUN | 0 | ").append(reasons.size() == 1 ? "reason below"
                        : "reason " + (reasons.indexOf(n.reason()) + 1) + " below").append(" |\n"));
        if (!reasons.isEmpty()) {
            md.append("\n## Why cells did not run\n\n");
            for (int i = 0; i < reasons.size(); i++) {
                md.append(reasons.size() == 1 ? "- " : (i + 1) + ". ").append(reasons.get(i)).append("\n");
            }
        }
        List<RunResult> failed = results.stream().filter(r -> !r.passed()).toList();
        if (!failed.isEmpty()) {
            md.append("\n## What failed\n\n");
            failed.forEach(r -> md.append("- **").append(r.scenario()).append("** on ").append(r.cell()).append(" #")
                    .append(r.repetition()).append(": ").append(String.join("; ", r.mismatches()))
                    .append(" ([timeline](").append(runPath(r)).append("/timeline.svg))\n"));
        }
        md.append("\n## Timings\n\n");
        timings(now).forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append("\n"));
        phases.forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append("\n"));
        Map<String, Map<String, Double>> perPhase = phaseBreakdown();
        if (!perPhase.isEmpty()) {
            md.append("\nPer run, mean seconds by phase:\n\n| scenario | cell | ").append(String.join(" | ", PHASES))
                    .append(" | whole run |\n|---|---|").append("---|".repeat(PHASES.size() + 1)).append("\n");
            perPhase.forEach((key, means) -> md.append("| ").append(key.replace(" ", " | ")).append(" | ")
                    .append(PHASES.stream().map(p -> means.containsKey(p) ? means.get(p) + "s" : "").collect(Collectors.joining(" | ")))
                    .append(" | ").append(means.getOrDefault("run", 0.0)).append("s |\n"));
        }
        md.append("\nPictures: `<scenario>/<cell>/<repetition>/timeline.svg` (open in a browser); the timeline as text and JSON, ")
                .append("iptables-save before/after, their diff, NPM's transcript and kubelet's log lines are beside each.\n");
        if (!byCell.isEmpty()) {
            RunResult r = results.get(0);
            md.append("First run's picture: [").append(runPath(r)).append("/timeline.svg](").append(runPath(r)).append("/timeline.svg)\n");
        }
        write(dir.resolve("summary.md"), md.toString());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("runId", runId);
        json.put("suiteSeconds", Duration.between(started, now).toSeconds());
        json.put("firstVerdictSeconds", firstVerdict == null ? null : Duration.between(started, firstVerdict).toSeconds());
        json.put("timings", timings(now));
        json.put("phases", phases);
        json.put("phaseMeansSeconds", perPhase);
        json.put("results", results.stream().map(r -> Map.of("scenario", r.scenario(), "cell", r.cell(),
                "repetition", r.repetition(), "passed", r.passed(), "mismatches", r.mismatches(), "figures", r.figures())).toList());
        json.put("notRun", notRun);
        try {
            write(dir.resolve("summary.json"), JSON.writeValueAsString(json));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return dir.resolve("summary.md");
    }

    static final List<String> PHASES = List.of("reset", "until fault", "observe", "checks");

    /** Suite time, and time to the first verdict cold (boot included) and warm (cell already up: one run). */
    private Map<String, String> timings(Instant now) {
        Map<String, String> t = new LinkedHashMap<>();
        t.put("suite", Phase.human(Duration.between(started, now)));
        if (firstVerdict != null) {
            t.put("time to first verdict, cold (suite start, cluster boot included)", Phase.human(Duration.between(started, firstVerdict)));
        }
        Optional.ofNullable(firstVerdictOf.get("kubelet-init-race")).ifPresent(at -> t.put(
                "time to the first kubelet-init-race verdict from suite start (cold when it runs first on a fresh cell)",
                Phase.human(Duration.between(started, at))));
        results.stream().filter(r -> r.scenario().equals("kubelet-init-race")).skip(1)
                .map(r -> r.figures().get("runSeconds")).filter(Number.class::isInstance).map(n -> ((Number) n).doubleValue())
                .min(Double::compare).ifPresent(w -> t.put("time to a kubelet-init-race verdict, warm (cell booted: reset + fault + 90 s window + checks)",
                        Phase.human(Duration.ofMillis((long) (w * 1000)))));
        return t;
    }

    /** Mean seconds per phase (and per whole run) for each scenario × cell. */
    private Map<String, Map<String, Double>> phaseBreakdown() {
        Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        results.stream().collect(Collectors.groupingBy(r -> r.scenario() + " " + r.cell(), LinkedHashMap::new, Collectors.toList()))
                .forEach((key, runs) -> {
                    Map<String, Double> means = new LinkedHashMap<>();
                    for (String p : PHASES) {
                        runs.stream().map(r -> r.figures().get("phaseSeconds")).filter(Map.class::isInstance)
                                .map(m -> ((Map<?, ?>) m).get(p)).filter(Number.class::isInstance)
                                .mapToDouble(n -> ((Number) n).doubleValue()).average()
                                .ifPresent(a -> means.put(p, Math.round(a * 10) / 10.0));
                    }
                    runs.stream().map(r -> r.figures().get("runSeconds")).filter(Number.class::isInstance)
                            .mapToDouble(n -> ((Number) n).doubleValue()).average().ifPresent(a -> means.put("run", Math.round(a * 10) / 10.0));
                    if (!means.isEmpty()) {
                        out.put(key, means);
                    }
                });
        return out;
    }

    static String runPath(RunResult r) {
        return r.scenario() + "/" + r.cell().replace('/', '_') + "/" + r.repetition();
    }

    /** Recovery times, outage and hit rate, as compact text for the matrix. */
    static String keyFigures(List<RunResult> runs) {
        RunResult r = runs.get(runs.size() - 1);
        List<String> parts = new ArrayList<>();
        Object k = r.figures().get("kubeletInit");
        if (k != null) {
            long failedInits = runs.stream().filter(x -> "failed".equals(x.figures().get("kubeletInit"))).count();
            parts.add("kubelet init failed " + failedInits + "/" + runs.size());
        }
        Object npm = r.figures().get("npm");
        if (npm != null) {
            parts.add("NPM " + npm);
        }
        if (r.figures().get("recoverySeconds") instanceof Map<?, ?> rec) {
            for (String id : List.of("hint", "canary/mangle", "proxy/firewall", "services/nat")) {
                if (rec.containsKey(id)) {
                    String range = range(runs, x -> x.figures().get("recoverySeconds") instanceof Map<?, ?> m ? m.get(id) : null);
                    parts.add(id + (range.equals("never absent") ? " never absent" : " back " + range));
                }
            }
        }
        if (r.figures().containsKey("nodePortLargestOutageSeconds")) {
            parts.add("NodePort largest outage " + range(runs, x -> x.figures().get("nodePortLargestOutageSeconds")));
        }
        if (r.figures().containsKey("offsetMillis")) {
            parts.add("seed " + r.figures().get("seed"));
            Map<Object, List<RunResult>> byGap = runs.stream().collect(Collectors.groupingBy(x -> x.figures().getOrDefault("gapMillis", 0),
                    java.util.TreeMap::new, Collectors.toList()));
            if (byGap.size() > 1) {
                byGap.forEach((gap, l) -> parts.add("gap " + gap + " ms: hit " + l.stream()
                        .filter(x -> "failed".equals(x.figures().get("kubeletInit"))).count() + "/" + l.size()));
            }
        }
        Object exits = r.figures().get("noBackendCurlExits");
        if (exits != null) {
            parts.add("no-backend curl exits " + exits);
        }
        if (r.figures().get("noBackendInsideWindow") instanceof Map<?, ?> inside && !inside.isEmpty()) {
            parts.add("of which inside the flush window " + inside);
        }
        if (r.figures().get("cilium") instanceof Map<?, ?> c) {
            parts.add("Cilium " + c);
        }
        if (r.figures().get("notApplicableHere") instanceof List<?> na) {
            parts.add("not on this cell: " + na);
        }
        return String.join(", ", parts);
    }

    /**
     * "2.1s" when every run agrees, "0.7–2.3s" across runs, "never" (or "never in 2 of 10") when it did not come,
     * "never absent" when no sample after the fault missed it (kept, or restored by the restart itself).
     */
    static String range(List<RunResult> runs, java.util.function.Function<RunResult, Object> figure) {
        List<Object> values = runs.stream().map(figure).toList();
        if (!values.isEmpty() && values.stream().allMatch("never absent"::equals)) {
            return "never absent";
        }
        List<Double> numbers = values.stream().filter(Number.class::isInstance).map(v -> ((Number) v).doubleValue()).sorted().toList();
        long never = values.stream().filter("never"::equals).count();
        String nums = numbers.isEmpty() ? "" : numbers.get(0).equals(numbers.get(numbers.size() - 1))
                ? numbers.get(0) + "s" : numbers.get(0) + "–" + numbers.get(numbers.size() - 1) + "s";
        if (never == 0) {
            return nums.isEmpty() ? "?" : nums;
        }
        return never == runs.size() ? "never" : nums + " (never in " + never + " of " + runs.size() + ")";
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
