package dev.chainreaction.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ScenarioRunnerTest {
    @Test
    void seededOffsetsReplayAndStayInRange() {
        var first = IntStream.rangeClosed(1, 20).mapToObj(i -> ScenarioRunner.offset(42, i, Duration.ofMillis(100), Duration.ofSeconds(3))).toList();
        var again = IntStream.rangeClosed(1, 20).mapToObj(i -> ScenarioRunner.offset(42, i, Duration.ofMillis(100), Duration.ofSeconds(3))).toList();
        var other = IntStream.rangeClosed(1, 20).mapToObj(i -> ScenarioRunner.offset(43, i, Duration.ofMillis(100), Duration.ofSeconds(3))).toList();
        assertThat(first).isEqualTo(again).isNotEqualTo(other).doesNotHaveDuplicates()
                .allSatisfy(d -> assertThat(d).isBetween(Duration.ofMillis(100), Duration.ofSeconds(3)));
    }

    /** A sweep must cover its range: 24 offsets over 0-3 s land in every half-second bucket. */
    @Test
    void seededOffsetsSpreadOverTheWholeRange() {
        var buckets = IntStream.rangeClosed(1, 24).mapToObj(i -> ScenarioRunner.offset(20261008, i, Duration.ZERO, Duration.ofSeconds(3)))
                .map(d -> d.toMillis() / 500).distinct().count();
        assertThat(buckets).isEqualTo(6);
    }
}
