package dev.chainreaction.fault;

import dev.chainreaction.cluster.ExecResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** When a fault ran on which node, and what its commands printed: the fault window of a timeline. */
public record FaultRecord(String description, String node, Instant started, Instant ended, List<ExecResult> steps) {
    public FaultRecord {
        steps = List.copyOf(steps);
    }

    public Duration duration() {
        return Duration.between(started, ended);
    }
}
