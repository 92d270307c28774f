package dev.chainreaction.cluster;

import java.time.Instant;

/** A Kubernetes node: something you can exec on, read logs from, and restart services in. */
public interface Node extends Shell {

    /** The unit's log since the instant (journalctl -u UNIT), one line per entry. */
    String journal(String unit, Instant since);

    /** Restarts a service (systemctl restart UNIT) and returns once systemd says it is done. */
    ExecResult restartService(String unit);

    /** The node's address on its container network: what NodePorts are reached at. */
    String ip();

    boolean isRunning();
}
