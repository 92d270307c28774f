package dev.chainreaction.report;

import io.qameta.allure.Allure;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionEvaluationListener;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.EvaluatedCondition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named wait with a budget, announced before ("Waiting ≤ 2m0s for node Ready") and after ("node Ready after
 * 14s"), with progress every few seconds on long waits. All waits of the harness go through here (Awaitility).
 */
public final class Phase {
    private static final Logger log = LoggerFactory.getLogger(Phase.class);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

    private Phase() {
    }

    /** Waits until {@code condition} is true; fails with "timed out after X waiting for NAME (last: ...)". */
    public static Duration await(String name, Duration budget, Duration poll, Callable<Boolean> condition,
                                 Callable<Boolean> failFast, String failFastReason) {
        return inAllureStep(name + " (budget " + human(budget) + ")", () -> awaitLogged(name, budget, poll, condition, failFast, failFastReason),
                took -> name + " — after " + human(took) + " (budget " + human(budget) + ")");
    }

    private static Duration awaitLogged(String name, Duration budget, Duration poll, Callable<Boolean> condition,
                                        Callable<Boolean> failFast, String failFastReason) {
        log.info("Waiting ≤ {} for {}", human(budget), name);
        long start = System.nanoTime();
        Exception[] lastError = new Exception[1];
        Callable<Boolean> remembering = () -> {
            try {
                boolean ok = condition.call();
                lastError[0] = null;
                return ok;
            } catch (Exception e) {
                lastError[0] = e;
                return false;
            }
        };
        try {
            Awaitility.await(name).atMost(budget).pollInterval(poll).pollDelay(Duration.ZERO)
                    .conditionEvaluationListener(progress(name, lastError))
                    .failFast(failFastReason, failFast)
                    .until(remembering);
        } catch (ConditionTimeoutException e) {
            throw new PhaseTimeoutException("timed out after " + human(budget) + " waiting for " + name
                    + (lastError[0] == null ? "" : " (last error: " + lastError[0] + ")"), lastError[0] != null ? lastError[0] : e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        log.info("✓ {} after {}", name, human(took));
        return took;
    }

    /** Runs a step that is not a wait, announcing it and its duration. */
    public static <T> T run(String name, Callable<T> step) {
        return inAllureStep(name, () -> runLogged(name, step), v -> name);
    }

    /** Inside a test, the phase is an Allure step (renamed with its outcome when it ends); outside, just run. */
    private static <T> T inAllureStep(String name, Callable<T> body, java.util.function.Function<T, String> doneName) {
        if (Allure.getLifecycle().getCurrentTestCaseOrStep().isEmpty()) {
            try {
                return body.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return Allure.step(name, (Allure.ThrowableContextRunnable<T, Allure.StepContext>) ctx -> {
            T value = body.call();
            ctx.name(doneName.apply(value));
            return value;
        });
    }

    private static <T> T runLogged(String name, Callable<T> step) {
        log.info("{} ...", name);
        long start = System.nanoTime();
        try {
            T value = step.call();
            log.info("✓ {} ({})", name, human(Duration.ofNanos(System.nanoTime() - start)));
            return value;
        } catch (RuntimeException e) {
            log.error("✗ {} failed: {}", name, e.getMessage());
            throw e;
        } catch (Exception e) {
            log.error("✗ {} failed: {}", name, e.getMessage());
            throw new IllegalStateException(name + " failed: " + e.getMessage(), e);
        }
    }

    private static ConditionEvaluationListener<Object> progress(String name, Exception[] lastError) {
        long[] lastReport = {System.nanoTime()};
        return (EvaluatedCondition<Object> c) -> {
            if (!c.isSatisfied() && System.nanoTime() - lastReport[0] >= PROGRESS_EVERY.toNanos()) {
                lastReport[0] = System.nanoTime();
                log.info("  … still waiting for {} ({} elapsed, {} left){}", name,
                        human(Duration.ofMillis(c.getElapsedTimeInMS())), human(Duration.ofMillis(c.getRemainingTimeInMS())),
                        lastError[0] == null ? "" : "; last error: " + lastError[0]);
            }
        };
    }

    public static String human(Duration d) {
        long s = d.toSeconds();
        if (s < 10) {
            return String.format(java.util.Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
        }
        return s >= 60 ? (s / 60) + "m" + (s % 60) + "s" : s + "s";
    }

    /** A phase ran out of its budget; the message names what was awaited. */
    public static class PhaseTimeoutException extends RuntimeException {
        public PhaseTimeoutException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
