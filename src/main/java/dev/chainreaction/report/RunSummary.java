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
import java.util.List;
import java.util.Map;
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
        results.add(r);
        Path runDir = dir.resolve(r.scenario()).resolve(r.cell().replace('/', '_')).resolve(String.valueOf(r.repetition()));
        write(runDir.resolve("timeline.txt"), r.timeline().render());
        write(runDir.resolve("timeline.json"), r.timeline().toJson());
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
        Map<String, List<RunResult>> byCell = results.stream().collect(Collectors.groupingBy(
                r -> r.scenario() + " " + r.cell(), LinkedHashMap::new, Collectors.toList()));
        StringBuilder md = new StringBuilder("# chainreaction run ").append(runId).append("\n\n");
        long passed = byCell.values().stream().filter(l -> l.stream().allMatch(RunResult::passed)).count();
        md.append(String.format("%d of %d scenario cells passed; %d cells did not run. Suite time %s",
                passed, byCell.size(), notRun.size(), Phase.human(Duration.between(started, Instant.now()))));
        if (firstVerdict != null) {
            md.append(", first verdict after ").append(Phase.human(Duration.between(started, firstVerdict)));
        }
        md.append(".\n\n| scenario | cell | verdict | runs | key figures |\n|---|---|---|---|---|\n");
        byCell.forEach((key, runs) -> {
            RunResult first = runs.get(0);
            long ok = runs.stream().filter(RunResult::passed).count();
            String verdict = ok == runs.size() ? "PASSED" : "FAILED";
            md.append("| ").append(first.scenario()).append(" | ").append(first.cell()).append(" | ").append(verdict)
                    .append(" | ").append(ok).append("/").append(runs.size()).append(" passed | ").append(keyFigures(runs)).append(" |\n");
        });
        notRun.forEach(n -> md.append("| ").append(n.scenario()).append(" | ").append(n.cell()).append(" | NOT RUN | 0 | ")
                .append(n.reason()).append(" |\n"));
        List<RunResult> failed = results.stream().filter(r -> !r.passed()).toList();
        if (!failed.isEmpty()) {
            md.append("\n## What failed\n\n");
            failed.forEach(r -> md.append("- **").append(r.scenario()).append("** on ").append(r.cell()).append(" #")
                    .append(r.repetition()).append(": ").append(String.join("; ", r.mismatches())).append("\n"));
        }
        if (!phases.isEmpty()) {
            md.append("\n## Timings\n\n");
            phases.forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append("\n"));
        }
        md.append("\nPer run: `<scenario>/<cell>/<repetition>/timeline.txt` and the evidence beside it.\n");
        write(dir.resolve("summary.md"), md.toString());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("runId", runId);
        json.put("suiteSeconds", Duration.between(started, Instant.now()).toSeconds());
        json.put("firstVerdictSeconds", firstVerdict == null ? null : Duration.between(started, firstVerdict).toSeconds());
        json.put("phases", phases);
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
                    parts.add(id + " " + (rec.get(id) instanceof Number n ? n + "s" : rec.get(id)));
                }
            }
        }
        Object outage = r.figures().get("nodePortLargestOutageSeconds");
        if (outage != null) {
            parts.add("NodePort outage " + outage + "s");
        }
        Object exits = r.figures().get("noBackendCurlExits");
        if (exits != null) {
            parts.add("no-backend exits " + exits);
        }
        return String.join(", ", parts);
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
