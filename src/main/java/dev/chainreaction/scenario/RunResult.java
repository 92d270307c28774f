package dev.chainreaction.scenario;

import dev.chainreaction.report.Timeline;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one repetition of a scenario on one cell observed, and how that compares with its expectations.
 * {@code mismatches} empty = passed. {@code observation} is what was seen, unjudged. {@code figures} are the numbers a person looks for (recovery times, outage).
 */
public record RunResult(String scenario, String cell, int repetition, List<String> mismatches,
                        Map<String, Object> figures, Timeline timeline, Map<String, String> evidence,
                        Observation observation) {
    public RunResult {
        mismatches = List.copyOf(mismatches);
        figures = new LinkedHashMap<>(figures);
        evidence = new LinkedHashMap<>(evidence);
    }

    public boolean passed() {
        return mismatches.isEmpty();
    }
}
