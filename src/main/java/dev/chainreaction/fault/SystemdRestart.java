package dev.chainreaction.fault;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.netfilter.Backend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The real thing on a node with systemd: writes the chosen saved rules to /etc/systemd/scripts/ip4save and
 * ip6save, then {@code systemctl restart iptables} (or stop, gap, start when a gap is asked for).
 */
public final class SystemdRestart implements RestartExecutor {
    public static final String IP4SAVE = "/etc/systemd/scripts/ip4save";
    public static final String IP6SAVE = "/etc/systemd/scripts/ip6save";
    private final Shell node;

    public SystemdRestart(Shell node) {
        this.node = node;
    }

    @Override
    public FaultRecord restart(IptablesServiceRestart fault) {
        Backend b = fault.backend();
        Instant started = Instant.now();
        List<ExecResult> steps = new ArrayList<>();
        SavedRules.Contents saved = fault.savedRules().resolve(node, b);
        steps.add(node.exec(List.of("sh", "-c", "cat > " + IP4SAVE), saved.ipv4()).orThrow());
        steps.add(node.exec(List.of("sh", "-c", "cat > " + IP6SAVE), saved.ipv6()).orThrow());
        String command = fault.gap().isZero() ? "systemctl restart iptables"
                : String.format(Locale.ROOT, "systemctl stop iptables && sleep %.3f && systemctl start iptables",
                fault.gap().toMillis() / 1000.0);
        ExecResult run = node.exec(List.of("sh", "-c", command), null);
        steps.add(run);
        if (!run.succeeded()) {
            throw new FaultFailedException(fault.describe() + " failed on " + node.name() + " (exit "
                    + run.exitCode() + "): " + run.stderr().strip());
        }
        return new FaultRecord(fault.describe(), node.name(), started, Instant.now(), steps);
    }

}
