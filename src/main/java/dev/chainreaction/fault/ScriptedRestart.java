package dev.chainreaction.fault;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.netfilter.Backend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Azure Linux's iptables.service stop and start, run as one shell script through the node's own iptables tools,
 * so the flush window is as short (and as real) as the unit's. The saved rules travel inside the script as
 * here-documents: no temporary files on the node.
 */
public final class ScriptedRestart implements RestartExecutor {
    private final Shell node;

    public ScriptedRestart(Shell node) {
        this.node = node;
    }

    @Override
    public FaultRecord restart(IptablesServiceRestart fault) {
        Instant started = Instant.now();
        List<ExecResult> steps = new ArrayList<>();
        ExecResult run = node.exec(List.of("sh", "-s"), prepare(fault));
        steps.add(run);
        if (!run.succeeded()) {
            // The unit's start script fails the same way when the saved file does not restore.
            throw new FaultFailedException(fault.describe() + " failed on " + node.name() + " (exit "
                    + run.exitCode() + "): " + run.stderr().strip());
        }
        return new FaultRecord(fault.describe(), node.name(), started, Instant.now(), steps);
    }

    @Override
    public String prepare(IptablesServiceRestart fault) {
        Backend b = fault.backend();
        StringBuilder script = new StringBuilder("# systemctl restart iptables, Azure Linux 3.0 semantics\n");
        boolean now = fault.savedRules() instanceof SavedRules.SnapshotNow;
        if (now) {
            // what iptables_save wrote just before the restart, in the same breath
            script.append("saved4=$(").append(b.save()).append(")\nsaved6=$(").append(b.ip6save()).append(")\n");
        }
        IptablesServiceRestart.stopCommands(b.iptables()).forEach(c -> script.append(c).append('\n'));
        IptablesServiceRestart.stopCommands(b.ip6tables()).forEach(c -> script.append(c).append('\n'));
        if (!fault.gap().isZero()) {
            script.append(String.format(Locale.ROOT, "sleep %.3f%n", fault.gap().toMillis() / 1000.0));
        }
        IptablesServiceRestart.startCommands(b.iptables()).forEach(c -> script.append(c).append('\n'));
        IptablesServiceRestart.startCommands(b.ip6tables()).forEach(c -> script.append(c).append('\n'));
        if (now) {
            script.append("printf '%s\\n' \"$saved4\" | ").append(b.restore()).append('\n');
            script.append("printf '%s\\n' \"$saved6\" | ").append(b.ip6restore()).append('\n');
        } else {
            SavedRules.Contents saved = fault.savedRules().resolve(node, b);
            appendRestore(script, b.restore(), saved.ipv4());
            appendRestore(script, b.ip6restore(), saved.ipv6());
        }
        return script.toString();
    }

    private static void appendRestore(StringBuilder script, String tool, String rules) {
        String marker = "CRX_SAVED_RULES_EOF";
        if (rules.contains(marker)) {
            throw new IllegalArgumentException("saved rules contain the here-document marker " + marker);
        }
        script.append(tool).append(" <<'").append(marker).append("'\n").append(rules);
        if (!rules.endsWith("\n")) {
            script.append('\n');
        }
        script.append(marker).append('\n');
    }
}
