package dev.chainreaction.fault;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Node;
import dev.chainreaction.netfilter.KubeletChains;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The deterministic trigger: an interposer first in kubelet's PATH records every iptables call kubelet makes and,
 * when a call matches the armed step, runs the fault before letting the call through. The harness installs it in a
 * running node (a systemd drop-in for kubelet's PATH), so it works on any node image with systemd.
 */
public final class KubeletStepInterposer {
    static final String BIN = "/opt/chainreaction/interposer";
    static final String RUN = "/run/chainreaction";
    private static final String DROP_IN = "/etc/systemd/system/kubelet.service.d/90-chainreaction-interposer.conf";

    /** kubelet's calls per step, as the interposer sees "$*" after the wait flags (pkg/util/iptables order). */
    private static final Map<String, String> STEP_CALLS = Map.of(
            "hint", "-N " + KubeletChains.HINT_CHAIN + " -t mangle",
            "firewall", "-N " + KubeletChains.FIREWALL_CHAIN + " -t filter",
            "output-jump", "-C OUTPUT -t filter -j " + KubeletChains.FIREWALL_CHAIN,
            "input-jump", "-C INPUT -t filter -j " + KubeletChains.FIREWALL_CHAIN,
            "localnet-drop", "-C " + KubeletChains.FIREWALL_CHAIN + " -t filter -m comment --comment " + KubeletChains.LOCALNET_COMMENT,
            "canary", "-N " + KubeletChains.CANARY_CHAIN + " -t mangle");

    private final Node node;

    private KubeletStepInterposer(Node node) {
        this.node = node;
    }

    /** Installs the interposer for iptables and ip6tables and puts it first in kubelet's PATH (kubelet not restarted). */
    public static KubeletStepInterposer install(Node node) {
        installScript(node);
        String path = node.exec("sh", "-c", "systemctl show kubelet -p Environment | grep -o 'PATH=[^ ]*' | cut -d= -f2").stdout().strip();
        String basePath = path.isEmpty() ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : path;
        if (!basePath.startsWith(BIN)) {
            basePath = BIN + ":" + basePath;
        }
        node.exec(List.of("sh", "-c", "mkdir -p /etc/systemd/system/kubelet.service.d && cat > " + DROP_IN
                + " && systemctl daemon-reload"), "[Service]\nEnvironment=PATH=" + basePath + "\n").orThrow();
        return new KubeletStepInterposer(node);
    }

    /**
     * Installs the interposer where the node's kubelet already looks first: {@link #BIN} leads the PATH the node
     * starts kubelet with (the k3s node's supervisor does that), so only the script is written.
     */
    public static KubeletStepInterposer installOnPath(Node node) {
        installScript(node);
        return new KubeletStepInterposer(node);
    }

    /** The directory that must come first in kubelet's PATH. */
    public static String binDir() {
        return BIN;
    }

    private static void installScript(Node node) {
        node.exec(List.of("sh", "-c", "mkdir -p " + BIN + " " + RUN + " && cat > " + BIN + "/iptables && chmod 755 "
                + BIN + "/iptables && ln -sf iptables " + BIN + "/ip6tables"), resource("interposer.sh")).orThrow();
    }

    public static List<String> steps() {
        return List.of("hint", "firewall", "output-jump", "input-jump", "localnet-drop", "canary");
    }

    /** Arms the step: the next matching iptables call of kubelet runs {@code faultScript} first, once. */
    public void arm(String step, String faultScript) {
        String call = STEP_CALLS.get(step);
        if (call == null) {
            throw new IllegalArgumentException("unknown kubelet step '" + step + "'; allowed: " + String.join(", ", steps()));
        }
        node.exec(List.of("sh", "-c", "cat > " + RUN + "/fault.sh"), faultScript).orThrow();
        node.exec(List.of("sh", "-c", "rm -f " + RUN + "/arm.fired " + RUN + "/interposer.log && cat > " + RUN + "/arm"),
                "iptables\n" + call + "\n").orThrow();
    }

    public void disarm() {
        node.exec("rm", "-f", RUN + "/arm");
    }

    public boolean fired() {
        return node.exec("test", "-f", RUN + "/arm.fired").succeeded();
    }

    /** What the fault script printed when it fired. */
    public String faultOutput() {
        return node.exec("cat", RUN + "/fault.out").stdout();
    }

    /** Everything the interposer recorded since it was armed: kubelet's calls and the fault's window. */
    public List<InterposedEvent> events() {
        return parseLog(node.exec("cat", RUN + "/interposer.log").stdout());
    }

    /** Parses the interposer's log, sorted by start time (a call is logged when it ends, after the fault it waited for). */
    static List<InterposedEvent> parseLog(String log) {
        List<InterposedEvent> events = new ArrayList<>();
        for (String line : log.split("\n")) {
            String[] f = line.split(" ", 6);
            if (f.length >= 3 && f[1].equals("CALL") && f.length == 6) {
                events.add(new InterposedEvent(epoch(f[0]), epoch(f[2]), "call", Integer.parseInt(f[3]), f[4] + " " + f[5]));
            } else if (f.length >= 3 && f[1].startsWith("FAULT-")) {
                events.add(new InterposedEvent(epoch(f[0]), epoch(f[0]), f[1].toLowerCase(java.util.Locale.ROOT), 0,
                        line.substring(line.indexOf(f[1]) + f[1].length()).strip()));
            }
        }
        events.sort(java.util.Comparator.comparing(InterposedEvent::start));
        return events;
    }

    /** The script, for tests that run it outside a node. */
    static String script() {
        return resource("interposer.sh");
    }

    /** The call "$*" the interposer matches for a step. */
    static String stepCall(String step) {
        return STEP_CALLS.get(step);
    }

    /** One line of the interposer's log: a kubelet iptables call (with exit status) or the fault's start/end. */
    public record InterposedEvent(Instant start, Instant end, String kind, int exitCode, String text) {
        public Duration took() {
            return Duration.between(start, end);
        }
    }

    private static Instant epoch(String secondsDotNanos) {
        String[] p = secondsDotNanos.split("\\.");
        long nanos = p.length > 1 ? Long.parseLong((p[1] + "000000000").substring(0, 9)) : 0;
        return Instant.ofEpochSecond(Long.parseLong(p[0]), nanos);
    }

    private static String resource(String name) {
        try (InputStream in = KubeletStepInterposer.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
