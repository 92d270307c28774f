package dev.chainreaction.probe;

import dev.chainreaction.cluster.Shell;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Requests a URL every {@code every} in the background until stopped; reports samples and the largest outage. */
public final class NodePortSampler implements AutoCloseable {
    private final List<HttpSample> samples = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    public NodePortSampler(Shell from, String url, Duration every, Duration limit) {
        thread = new Thread(() -> {
            while (running) {
                long start = System.nanoTime();
                try {
                    samples.add(HttpSample.get(from, url, limit));
                } catch (RuntimeException e) {
                    samples.add(new HttpSample(Instant.now(), from.name(), url, -1, 0, Duration.ZERO, e.getMessage()));
                }
                long left = every.toNanos() - (System.nanoTime() - start);
                if (left > 0) {
                    try {
                        Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "sampler " + url);
        thread.setDaemon(true);
        thread.start();
    }

    public List<HttpSample> samples() {
        return List.copyOf(samples);
    }

    /** The longest run of failed samples, from the first failure to the next success (or the last sample). */
    public static Duration largestOutage(List<HttpSample> samples, java.util.function.Predicate<HttpSample> ok) {
        Duration largest = Duration.ZERO;
        Instant downSince = null;
        for (HttpSample s : samples) {
            if (!ok.test(s) && downSince == null) {
                downSince = s.at();
            } else if (ok.test(s) && downSince != null) {
                largest = max(largest, Duration.between(downSince, s.at()));
                downSince = null;
            }
        }
        if (downSince != null && !samples.isEmpty()) {
            largest = max(largest, Duration.between(downSince, samples.get(samples.size() - 1).at()));
        }
        return largest;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static List<HttpSample> failures(List<HttpSample> samples) {
        List<HttpSample> out = new ArrayList<>();
        samples.stream().filter(s -> !s.ok()).forEach(out::add);
        return out;
    }
}
