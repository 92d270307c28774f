package dev.chainreaction.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.cluster.NodeImageCluster;
import dev.chainreaction.report.RunSummary;
import io.qameta.allure.Allure;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
 * between runs. Select with -Dchainreaction.scenarios=a,b (default: every file with the tag "nightly") and
 * override repetitions with -Dchainreaction.repetitions=N. Writes reports/&lt;run-id&gt;/summary.md.
 */
@Tag("scenario")
class ScenarioSuiteTest {
    private static final Logger log = LoggerFactory.getLogger(ScenarioSuiteTest.class);
    private static final Path PROJECT = Path.of(System.getProperty("chainreaction.projectDir", "."));
    private static final RunSummary SUMMARY = new RunSummary(PROJECT.resolve("reports"));
    private static NodeImageCluster nodeImage;
    private static ScenarioRunner runner;
    private static String nodeImageUnavailable;

    @TestFactory
    List<DynamicNode> scenarios() {
        List<DynamicNode> nodes = new ArrayList<>();
        for (Scenario s : selected()) {
            List<DynamicNode> cells = new ArrayList<>();
            for (Cell cell : s.cells()) {
                cells.add(DynamicContainer.dynamicContainer(cell.label(), repetitions(s, cell)));
            }
            nodes.add(DynamicContainer.dynamicContainer(s.name(), cells));
        }
        return nodes;
    }

    private List<DynamicNode> repetitions(Scenario s, Cell cell) {
        if (cell.backend() == Cell.ClusterBackend.K3S) {
            String reason = "k3s cells need the rancher/k3s and Cilium images, which this machine cannot pull (no registry); "
                    + "run them where images can be pulled";
            return List.of(DynamicTest.dynamicTest("not run: " + reason, () -> {
                SUMMARY.notRun(s.name(), cell.label(), reason);
                Assumptions.abort(reason);
            }));
        }
        int n = Integer.getInteger("chainreaction.repetitions", s.repetitionsOrDefault());
        List<DynamicNode> reps = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            int rep = i;
            reps.add(DynamicTest.dynamicTest("run " + rep + " of " + n, () -> {
                ScenarioRunner r = runner();
                RunResult result = Allure.step(s.name() + " on " + cell.label() + " #" + rep, () -> r.run(s, cell, rep));
                result.evidence().forEach((name, text) -> Allure.addAttachment(name, "text/plain", text, ".txt"));
                Allure.addAttachment("timeline.json", "application/json", result.timeline().toJson(), ".json");
                SUMMARY.add(result);
                assertThat(result.mismatches()).as(s.name() + " on " + cell.label() + " #" + rep + " (figures " + result.figures() + ")").isEmpty();
            }));
        }
        return reps;
    }

    private static synchronized ScenarioRunner runner() {
        if (nodeImageUnavailable != null) {
            throw new IllegalStateException(nodeImageUnavailable);
        }
        if (runner == null) {
            Instant t0 = Instant.now();
            try {
                nodeImage = NodeImageCluster.start(NodeImageCluster.configuredImage());
            } catch (RuntimeException e) {
                nodeImageUnavailable = "the node-image cluster did not come up: " + e.getMessage();
                throw e;
            }
            SUMMARY.phase("node-image boot (container start → node Ready)", nodeImage.bootTimes().total());
            runner = new ScenarioRunner(nodeImage);
            runner.deployLab();
            SUMMARY.phase("node-image cell ready for scenarios (boot + lab)", Duration.between(t0, Instant.now()));
        }
        return runner;
    }

    static List<Scenario> selected() {
        List<Scenario> all = ScenarioLoader.loadAll(PROJECT.resolve("scenarios"));
        String wanted = System.getProperty("chainreaction.scenarios", "");
        if (wanted.isBlank()) {
            return all.stream().filter(s -> s.tags().contains("nightly")).toList();
        }
        Set<String> names = Arrays.stream(wanted.split(",")).map(String::strip).collect(Collectors.toSet());
        List<String> unknown = names.stream().filter(n -> all.stream().noneMatch(s -> s.name().equals(n))).toList();
        if (!unknown.isEmpty()) {
            throw new ScenarioException("unknown scenario(s) " + unknown + "; available: "
                    + all.stream().map(Scenario::name).collect(Collectors.joining(", ")));
        }
        return all.stream().filter(s -> names.contains(s.name())).toList();
    }

    @AfterAll
    static void writeSummaryAndRemoveCluster() {
        try {
            Path md = SUMMARY.write();
            log.info("summary: {}", md.toAbsolutePath());
        } finally {
            if (nodeImage != null) {
                nodeImage.close();
            }
        }
    }
}
