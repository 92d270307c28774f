package dev.chainreaction.fault;

import dev.chainreaction.netfilter.Backend;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code systemctl restart iptables} with Azure Linux 3.0's semantics (SPECS/iptables): stop flushes every table
 * and deletes every user chain, then, after {@code gap}, start sets DROP policies, flushes again and restores the
 * saved file. Not atomic: between stop and the restore, the chains do not exist.
 */
public record IptablesServiceRestart(Backend backend, SavedRules savedRules, Duration gap) {
    private static final List<String> TABLES_STOP = List.of("raw", "nat", "mangle");

    public IptablesServiceRestart {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(savedRules, "savedRules");
        if (gap == null || gap.isNegative()) {
            throw new IllegalArgumentException("gap must be zero or positive, got: " + gap);
        }
    }

    /** /etc/systemd/scripts/iptables.stop, for one family's tool ("iptables-nft", "ip6tables-legacy"). */
    public static List<String> stopCommands(String tool) {
        List<String> cmds = new java.util.ArrayList<>();
        cmds.add(tool + " -Z");
        cmds.add(tool + " -F");
        for (String t : TABLES_STOP) {
            cmds.add(tool + " -t " + t + " -F");
            cmds.add(tool + " -t " + t + " -X");
        }
        cmds.add(tool + " -X");
        for (String chain : List.of("INPUT", "FORWARD", "OUTPUT")) {
            cmds.add(tool + " -P " + chain + " ACCEPT");
        }
        return cmds;
    }

    /** /etc/systemd/scripts/iptables (start) up to the restore, which the executor appends. */
    public static List<String> startCommands(String tool) {
        List<String> cmds = new java.util.ArrayList<>();
        for (String chain : List.of("INPUT", "FORWARD", "OUTPUT")) {
            cmds.add(tool + " -P " + chain + " DROP");
        }
        for (String t : List.of("filter", "raw", "nat", "mangle")) {
            cmds.add(tool + " -t " + t + " -F");
            cmds.add(tool + " -t " + t + " -X");
        }
        return cmds;
    }

    public String describe() {
        return "systemctl restart iptables (" + backend.label() + ", restores " + savedRules.describe() + ", gap "
                + gap.toMillis() + " ms)";
    }
}
