package dev.chainreaction.probe;

import java.util.ArrayList;
import java.util.List;

/**
 * kubelet's verdict on its one-shot iptables initialisation, read from its log (kubelet_network_linux.go):
 * "Initialized iptables rules." or "Failed to initialize iptables rules; some functionality may be missing."
 * with the iptables error on the lines after it. Only the IPv4 verdict counts: it is what NPM depends on.
 */
public record KubeletInitVerdict(State state, String line, List<String> error) {
    public static final String INITIALIZED = "Initialized iptables rules.";
    public static final String FAILED = "Failed to initialize iptables rules; some functionality may be missing.";

    public enum State { INITIALIZED, FAILED, PENDING }

    /** The first verdict for IPv4 in a log excerpt (journalctl of one kubelet start), or PENDING if none yet. */
    public static KubeletInitVerdict read(String log) {
        List<String> lines = log.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            boolean ipv4 = l.contains("protocol=\"IPv4\"") || !l.contains("protocol=");
            if (l.contains(INITIALIZED) && ipv4) {
                return new KubeletInitVerdict(State.INITIALIZED, l, List.of());
            }
            if (l.contains(FAILED) && ipv4) {
                // v1.34 logs the iptables error before the verdict ("Failed to ensure that OUTPUT chain jumps to
                // KUBE-FIREWALL" err=< ... >), v1.28-v1.32 on the lines after it: look on both sides.
                List<String> error = new ArrayList<>();
                for (int j = Math.max(0, i - 8); j < Math.min(lines.size(), i + 3); j++) {
                    if (j == i) {
                        continue;
                    }
                    String next = lines.get(j);
                    // journald prefixes continuation lines with the unit's tag; keep the text after it
                    int colon = next.indexOf("]: ");
                    String text = (colon >= 0 ? next.substring(colon + 3) : next).strip();
                    if (text.contains("Failed to ensure") || text.contains("does not exist") || text.startsWith("Try `iptables")) {
                        error.add(text);
                    }
                }
                return new KubeletInitVerdict(State.FAILED, l, error);
            }
        }
        return new KubeletInitVerdict(State.PENDING, "", List.of());
    }

    /** "initialized", "failed" or "pending", as scenario expectations spell it. */
    public String outcome() {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }
}
