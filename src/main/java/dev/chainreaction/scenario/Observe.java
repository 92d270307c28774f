package dev.chainreaction.scenario;

import java.time.Duration;

/** How long to watch after the fault, and how often to sample chains and the NodePort. */
public record Observe(Duration window, Duration sampleEvery) {
    public static final Observe DEFAULT = new Observe(Duration.ofSeconds(90), Duration.ofMillis(500));

    public Observe {
        if (window != null && (window.isNegative() || window.isZero() || window.compareTo(Duration.ofMinutes(30)) > 0)) {
            throw new IllegalArgumentException("observe.window must be between 1s and 30m, got: " + window);
        }
        if (sampleEvery != null && sampleEvery.compareTo(Duration.ofMillis(50)) < 0) {
            throw new IllegalArgumentException("observe.sampleEvery must be at least 50ms, got: " + sampleEvery);
        }
    }

    public Duration windowOrDefault() {
        return window == null ? DEFAULT.window : window;
    }

    public Duration sampleEveryOrDefault() {
        return sampleEvery == null ? DEFAULT.sampleEvery : sampleEvery;
    }
}
