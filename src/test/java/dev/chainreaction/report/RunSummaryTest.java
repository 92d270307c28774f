package dev.chainreaction.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.chainreaction.scenario.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunSummaryTest {
    @TempDir
    Path reports;

    static RunResult race(int rep, Object hint, Object proxyFirewall, List<String> mismatches) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("phaseSeconds", Map.of("reset", 20.0, "until fault", 2.0, "observe", 90.0, "checks", 3.0));
        f.put("kubeletInit", "failed");
        f.put("npm", "fails");
        f.put("recoverySeconds", Map.of("hint", hint, "proxy/firewall", proxyFirewall));
        f.put("runSeconds", 115.0 + rep);
        return new RunResult("kubelet-init-race", "node-image/kube-proxy", rep, mismatches, f, new Timeline(), Map.of("timeline", "t"), null);
    }

    @Test
    void theMatrixSaysWhatRanWhatPassedWhatDidNotRunAndWhy() throws Exception {
        RunSummary summary = new RunSummary(reports);
        summary.add(race(1, "never", 0.7, List.of()));
        summary.add(race(2, "never", 2.3, List.of()));
        summary.add(race(3, 61.0, 1.1, List.of("hint: expected never back within 1m30s, back after 1m1s")));
        summary.notRun("kubelet-init-race", "k3s/cilium", "image rancher/k3s:v1.34.2-k3s1 cannot be pulled: no registry");
        summary.notRun("kubelet-init-race", "k3s/cilium", "image rancher/k3s:v1.34.2-k3s1 cannot be pulled: no registry");
        summary.phase("node-image/kube-proxy: boot (container start → node Ready)", java.time.Duration.ofSeconds(40));

        String md = Files.readString(summary.write());

        assertThat(md).contains("**0 of 1 scenario cells passed**; 1 did not run.")
                .contains("| kubelet-init-race | node-image/kube-proxy | **FAILED** | 2/3 passed | kubelet init failed 3/3, NPM fails, "
                        + "hint back 61.0s (never in 2 of 3), proxy/firewall back 0.7–2.3s |")
                .contains("| kubelet-init-race | k3s/cilium | NOT RUN | 0 | reason below |")
                .contains("## Why cells did not run\n\n- image rancher/k3s:v1.34.2-k3s1 cannot be pulled: no registry\n")
                .contains("- **kubelet-init-race** on node-image/kube-proxy #3: hint: expected never back")
                .contains("time to a kubelet-init-race verdict, warm").contains("node-image/kube-proxy: boot (container start → node Ready): 40s")
                .contains("| kubelet-init-race | node-image/kube-proxy | 20.0s | 2.0s | 90.0s | 3.0s | 117.0s |");
        assertThat(md.lines().filter(l -> l.contains("NOT RUN")).count()).as("a cell not run is listed once").isEqualTo(1);
        assertThat(RunSummary.range(List.of(race(1, "never absent", 1.0, List.of())), r -> "never absent")).isEqualTo("never absent");
        JsonNode json = new ObjectMapper().readTree(summary.dir().resolve("summary.json").toFile());
        assertThat(json.get("results")).hasSize(3);
        assertThat(json.get("notRun").get(0).get("reason").asText()).contains("no registry");
        assertThat(summary.dir().resolve("kubelet-init-race/node-image_kube-proxy/3/timeline.txt")).exists();
    }
}
