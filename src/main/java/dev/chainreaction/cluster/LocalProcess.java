package dev.chainreaction.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a process on this machine and collects its output; the one place that uses ProcessBuilder. */
final class LocalProcess {
    private static final Duration LIMIT = Duration.ofMinutes(2);

    private LocalProcess() {
    }

    static ExecResult run(List<String> argv, String stdin) {
        long start = System.nanoTime();
        Process process;
        try {
            process = new ProcessBuilder(argv).start();
        } catch (IOException e) {
            throw new ShellException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
        }
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        try (OutputStream in = process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // The process may exit without reading its input; its exit status tells what happened.
        }
        try {
            if (!process.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new ShellException("timed out after " + LIMIT.toSeconds() + "s: " + String.join(" ", argv));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new ShellException("interrupted while running " + String.join(" ", argv), e);
        }
        return new ExecResult(argv, process.exitValue(), out.join(), err.join(),
                Duration.ofNanos(System.nanoTime() - start));
    }

    private static String read(InputStream stream) {
        try (stream) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
