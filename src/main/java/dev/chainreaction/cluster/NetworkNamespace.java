package dev.chainreaction.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway network namespace on this machine: its own netfilter tables in the real kernel, so iptables and nft
 * can be exercised for real without Docker, leaving the host's own ruleset alone. Close it to delete it.
 */
public final class NetworkNamespace implements Shell, AutoCloseable {
    /** Every namespace this harness makes starts with this, so leftovers of a killed run can be found. */
    public static final String PREFIX = "crx-";
    private static final Logger log = LoggerFactory.getLogger(NetworkNamespace.class);

    private final String name;
    private boolean closed;

    private NetworkNamespace(String name) {
        this.name = name;
    }

    /** Creates a new namespace; needs root and iproute2. */
    public static NetworkNamespace create() {
        requireRoot();
        reapLeftovers();
        String name = PREFIX + UUID.randomUUID().toString().substring(0, 8);
        LocalProcess.run(List.of("ip", "netns", "add", name), null).orThrow();
        Holder.LIVE.add(name);
        log.debug("created network namespace {}", name);
        return new NetworkNamespace(name);
    }

    /** Deletes namespaces left by runs that were killed before they could clean up. */
    public static void reapLeftovers() {
        ExecResult list = LocalProcess.run(List.of("ip", "netns", "list"), null);
        for (String line : list.stdout().split("\n")) {
            String ns = line.split("\\s+")[0];
            if (ns.startsWith(PREFIX) && !Holder.LIVE.contains(ns)) {
                log.info("deleting leftover network namespace {} from an earlier run", ns);
                LocalProcess.run(List.of("ip", "netns", "del", ns), null);
            }
        }
    }

    private static void requireRoot() {
        ExecResult id = LocalProcess.run(List.of("id", "-u"), null);
        if (!id.stdout().strip().equals("0")) {
            throw new ShellException("network namespaces need root (ip netns add): run the tests as root, "
                    + "or run only the unit tests (the README says how)");
        }
    }

    @Override
    public ExecResult exec(List<String> argv, String stdin) {
        if (closed) {
            throw new IllegalStateException("network namespace " + name + " is already deleted");
        }
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        full.addAll(argv);
        ExecResult result = LocalProcess.run(full, stdin);
        return new ExecResult(argv, result.exitCode(), result.stdout(), result.stderr(), result.took());
    }

    @Override
    public String name() {
        return "netns " + name;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            LocalProcess.run(List.of("ip", "netns", "del", name), null).orThrow();
            Holder.LIVE.remove(name);
        }
    }

    /** Namespaces of this JVM, so a parallel reaper in the same run does not delete a live one. */
    private static final class Holder {
        static final java.util.Set<String> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();
    }
}
