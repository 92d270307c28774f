package dev.chainreaction.fault;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.netfilter.Backend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The real thing on a node with systemd: the chosen saved rules go to /etc/systemd/scripts/ip4save and ip6save,
 * then {@code systemctl restart iptables} (or stop, gap, start when a gap is asked for). A snapshot "now" is taken
 * by the command itself, as the incident's iptables_save script did, so it is current when it fires.
 */
public final class SystemdRestart implements RestartExecutor {
    public static final String IP4SAVE = "/etc/systemd/scripts/ip4save";
    public static final String IP6SAVE = "/etc/systemd/scripts/ip6save";
    private final Shell node;

    public SystemdRestart(Shell node) {
        this.node = node;
    }

    /** The fixed node script: persist the rules for the next boot, restart nothing. */
    public static String saveOnlyCommand(Backend b) {
        return b.save() + " > " + IP4SAVE + " && " + b.ip6save() + " > " + IP6SAVE;
    }

    /**
     * Writes a fixed saved file now (a snapshot taken earlier, or the distribution's), and returns the shell
     * command that performs the restart when run on the node (by this executor or by the interposer).
     */
    @Override
    public String prepare(IptablesServiceRestart fault) {
        Backend b = fault.backend();
        String restart = fault.gap().isZero() ? "systemctl restart iptables"
                : String.format(Locale.ROOT, "systemctl stop iptables && sleep %.3f && systemctl start iptables",
                fault.gap().toMillis() / 1000.0);
        if (fault.savedRules() instanceof SavedRules.SnapshotNow) {
            return saveOnlyCommand(b) + " && " + restart;
        }
        SavedRules.Contents saved = fault.savedRules().resolve(node, b);
        node.exec(List.of("sh", "-c", "cat > " + IP4SAVE), saved.ipv4()).orThrow();
        node.exec(List.of("sh", "-c", "cat > " + IP6SAVE), saved.ipv6()).orThrow();
        return restart;
    }

    @Override
    public FaultRecord restart(IptablesServiceRestart fault) {
        Instant started = Instant.now();
        List<ExecResult> steps = new ArrayList<>();
        ExecResult run = node.exec(List.of("sh", "-c", prepare(fault)), null);
        steps.add(run);
        if (!run.succeeded()) {
            throw new FaultFailedException(fault.describe() + " failed on " + node.name() + " (exit "
                    + run.exitCode() + "): " + run.stderr().strip());
        }
        return new FaultRecord(fault.describe(), node.name(), started, Instant.now(), steps);
    }
}
