package dev.chainreaction.netfilter;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.cluster.ShellException;
import java.util.ArrayList;
import java.util.List;

/** One backend's iptables tools on one shell (a namespace or a node): run commands, dump and restore. */
public final class Iptables {
    private final Shell shell;
    private final Backend backend;

    public Iptables(Shell shell, Backend backend) {
        this.shell = shell;
        this.backend = backend;
    }

    public Backend backend() {
        return backend;
    }

    public Shell shell() {
        return shell;
    }

    /** Runs {@code iptables-<backend> args...}; the result carries the exit status (1 = absent, 2 = bad call). */
    public ExecResult run(String... args) {
        List<String> argv = new ArrayList<>(List.of(backend.iptables()));
        argv.addAll(List.of(args));
        return shell.exec(argv, null);
    }

    /** The current ruleset of this backend (all tables it holds). */
    public Ruleset save() {
        return IptablesSave.parse(saveText());
    }

    public String saveText() {
        ExecResult r = shell.exec(List.of(backend.save()), null);
        if (!r.succeeded()) {
            throw new ShellException(missingHint(r) + "failed to dump " + backend.label() + " rules on "
                    + shell.name() + " (exit " + r.exitCode() + "): " + r.stderr().strip());
        }
        return r.stdout();
    }

    /** Replaces the tables named in the text with its content (iptables-restore semantics). */
    public void restore(String saveFormat) {
        shell.exec(List.of(backend.restore()), saveFormat).orThrow();
    }

    /** Fails with what to install when this backend's tools are not on the shell's PATH. */
    public Iptables requireInstalled() {
        ExecResult r = shell.exec(List.of(backend.iptables(), "--version"), null);
        if (!r.succeeded()) {
            throw new ShellException(missingHint(r) + backend.iptables() + " --version failed on " + shell.name()
                    + ": " + r.stderr().strip());
        }
        return this;
    }

    private String missingHint(ExecResult r) {
        return r.exitCode() == 127 || r.stderr().contains("No such file")
                ? backend.iptables() + " is not installed on " + shell.name()
                + " (Debian: apt-get install iptables, which ships both backends); " : "";
    }
}
