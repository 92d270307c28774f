package dev.chainreaction.cluster;

import java.util.List;

/**
 * Somewhere commands run: a throwaway network namespace on this machine, or a node container. Netfilter code
 * talks only to this, so the same probes and faults work on every kind of node.
 */
public interface Shell {

    /** Runs argv (no shell interpretation) and returns how it ended; never throws for a non-zero exit. */
    default ExecResult exec(String... argv) {
        return exec(List.of(argv), null);
    }

    /** Runs argv with the given text on standard input (null for none). */
    ExecResult exec(List<String> argv, String stdin);

    /** A short name for logs and reports ("netns crx-1a2b", "node crx-node-0"). */
    String name();
}
