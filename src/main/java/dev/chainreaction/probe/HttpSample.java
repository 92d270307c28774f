package dev.chainreaction.probe;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Shell;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One curl request from somewhere (a node or a pod) and how it ended: curl's exit code (0 ok, 7 refused, 28 timed
 * out), the HTTP status and curl's own total time, which excludes the exec round trip.
 */
public record HttpSample(Instant at, String from, String url, int curlExit, int httpCode, Duration time, String body) {

    public static HttpSample get(Shell from, String url, Duration limit) {
        Instant at = Instant.now();
        ExecResult r = from.exec(List.of("curl", "-sS", "--max-time", String.valueOf(limit.toMillis() / 1000.0),
                "-o", "/dev/stderr", "-w", "%{http_code} %{time_total}", url), null);
        String[] w = r.stdout().strip().split(" ");
        int code = w.length == 2 ? parseInt(w[0]) : 0;
        Duration time = w.length == 2 ? Duration.ofNanos((long) (Double.parseDouble(w[1]) * 1e9)) : r.took();
        return new HttpSample(at, from.name(), url, r.exitCode(), code, time, r.stderr());
    }

    public boolean ok() {
        return curlExit == 0 && httpCode == 200;
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
