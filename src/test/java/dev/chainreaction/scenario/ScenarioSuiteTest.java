package dev.chainreaction.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.report.RunPicture;
import dev.chainreaction.report.RunSummary;
import io.qameta.allure.Allure;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scenario files as JUnit tests: scenario → cell → repetition. One cluster per cell is booted once and reset
 * between runs. Select scenarios with -Dchainreaction.scenarios=a,b (default: every file tagged "nightly"), cells
 * with -Dchainreaction.cells=node-image/kube-proxy,k3s/cilium (default: all), and override repetitions with
 * -Dchainreaction.repetitions=N. A cell that cannot run here (its images cannot be had) is one skipped test with the
 * reason, and NOT RUN in the summary. Writes reports/&lt;run-id&gt;/summary.md.
 */
@Tag("scenario")
class ScenarioSuiteTest {
    private static final Logger log = LoggerFactory.getLogger(ScenarioSuiteTest.class);
    private static final Path PROJECT = Path.of(System.getProperty("chainreaction.projectDir", "."));
    private static final RunSummary SUMMARY = new RunSummary(PROJECT.resolve("reports"));
    private static final Cells CELLS = new Cells(SUMMARY);

    @TestFactory
    List<DynamicNode> scenarios() {
        List<DynamicNode> nodes = new ArrayList<>();
        List<String> wantedCells = listProperty("chainreaction.cells");
        for (Scenario s : selected()) {
            List<DynamicNode> cells = new ArrayList<>();
            for (Cell cell : s.cells()) {
                String unavailable = !wantedCells.isEmpty() && !Cells.matches(cell, wantedCells)
                        ? "not selected (-Dchainreaction.cells=" + String.join(",", wantedCells) + ")"
                        : CELLS.unavailable(cell).orElse(null);
                cells.add(DynamicContainer.dynamicContainer(cell.label(), unavailable != null
                        ? List.of(notRun(s, cell, unavailable)) : repetitions(s, cell)));
            }
            nodes.add(DynamicContainer.dynamicContainer(s.name(), cells));
        }
        return nodes;
    }

    private static DynamicTest notRun(Scenario s, Cell cell, String reason) {
        return DynamicTest.dynamicTest("not run: " + reason, () -> {
            SUMMARY.notRun(s.name(), cell.label(), reason);
            Assumptions.abort(reason);
        });
    }

    private List<DynamicNode> repetitions(Scenario s, Cell cell) {
        int n = Integer.getInteger("chainreaction.repetitions", s.repetitionsOrDefault());
        List<DynamicNode> reps = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            int rep = i;
            reps.add(DynamicTest.dynamicTest("run " + rep + " of " + n, () -> {
                ScenarioRunner r = CELLS.runner(s, cell);
                RunResult result = Allure.step(s.name() + " on " + cell.label() + " #" + rep, () -> r.run(s, cell, rep));
                result.evidence().forEach((name, text) -> Allure.addAttachment(name, "text/plain", text, ".txt"));
                Allure.addAttachment("timeline.json", "application/json", result.timeline().toJson(), ".json");
                if (result.observation() != null) {
                    Allure.addAttachment("timeline.svg", "image/svg+xml", RunPicture.of(result).svg(), ".svg");
                }
                SUMMARY.add(result);
                assertThat(result.mismatches()).as(s.name() + " on " + cell.label() + " #" + rep + " (figures " + result.figures() + ")").isEmpty();
            }));
        }
        return reps;
    }

    static List<Scenario> selected() {
        List<Scenario> all = ScenarioLoader.loadAll(PROJECT.resolve("scenarios"));
        List<String> wanted = listProperty("chainreaction.scenarios");
        if (wanted.isEmpty()) {
            // the incident first: its verdict is the one a person waits for
            return all.stream().filter(s -> s.tags().contains("nightly"))
                    .sorted(java.util.Comparator.comparing((Scenario s) -> !s.tags().contains("incident"))).toList();
        }
        Set<String> names = Set.copyOf(wanted);
        List<String> unknown = names.stream().filter(n -> all.stream().noneMatch(s -> s.name().equals(n))).toList();
        if (!unknown.isEmpty()) {
            throw new ScenarioException("unknown scenario(s) " + unknown + " in -Dchainreaction.scenarios; available: "
                    + all.stream().map(Scenario::name).collect(Collectors.joining(", ")));
        }
        return all.stream().filter(s -> names.contains(s.name())).toList();
    }

    private static List<String> listProperty(String name) {
        return Arrays.stream(System.getProperty(name, "").split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
    }

    @AfterAll
    static void writeSummaryAndRemoveClusters() {
        try {
            Path md = SUMMARY.write();
            log.info("summary: {}", md.toAbsolutePath());
        } finally {
            CELLS.close();
        }
    }
}
