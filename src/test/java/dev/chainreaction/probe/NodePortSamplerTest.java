package dev.chainreaction.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodePortSamplerTest {
    static HttpSample at(long ms, boolean ok) {
        return new HttpSample(Instant.ofEpochMilli(ms), "node", "http://x", ok ? 0 : 7, ok ? 200 : 0, Duration.ZERO, "");
    }

    @Test
    void largestOutageRunsFromFirstFailureToNextSuccess() {
        List<HttpSample> s = List.of(at(0, true), at(200, false), at(400, false), at(600, true),
                at(800, false), at(1000, false), at(1200, false), at(1400, false), at(1600, true));
        assertThat(NodePortSampler.largestOutage(s, HttpSample::ok)).isEqualTo(Duration.ofMillis(800));
        assertThat(NodePortSampler.largestOutage(List.of(at(0, true), at(200, true)), HttpSample::ok)).isZero();
        assertThat(NodePortSampler.largestOutage(List.of(at(0, true), at(200, false), at(900, false)), HttpSample::ok))
                .isEqualTo(Duration.ofMillis(700));
    }
}
