package dev.chainreaction.fault;

/**
 * Carries out an {@link IptablesServiceRestart} on a node. One fault model, two ways: the real unit where the node
 * has systemd ({@link SystemdRestart}), the same steps through the node's own tools where it has none
 * ({@link ScriptedRestart}: k3s nodes, network namespaces).
 */
public interface RestartExecutor {
    FaultRecord restart(IptablesServiceRestart fault);

    /**
     * The restart as a shell script to run on the node later (the kubelet-step interposer runs it from inside
     * kubelet's iptables call). A snapshot "now" is taken by the script itself, when it runs.
     */
    String prepare(IptablesServiceRestart fault);
}
