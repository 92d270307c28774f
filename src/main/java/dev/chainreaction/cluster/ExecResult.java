package dev.chainreaction.cluster;

import java.time.Duration;
import java.util.List;

/** What one command printed and how it ended; {@link #commandLine()} can be pasted into a shell. */
public record ExecResult(List<String> argv, int exitCode, String stdout, String stderr, Duration took) {

    public boolean succeeded() {
        return exitCode == 0;
    }

    public String commandLine() {
        return String.join(" ", argv.stream().map(ExecResult::quote).toList());
    }

    private static String quote(String arg) {
        return arg.matches("[A-Za-z0-9_./:=@%+,-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    /** Returns this result, or throws with the command, exit status and stderr when it failed. */
    public ExecResult orThrow() {
        if (!succeeded()) {
            throw new ShellException("command failed (exit " + exitCode + "): " + commandLine()
                    + (stderr.isBlank() ? "" : "\n" + stderr.strip()));
        }
        return this;
    }
}
