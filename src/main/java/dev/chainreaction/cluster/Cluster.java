package dev.chainreaction.cluster;

import dev.chainreaction.fault.KubeletStepInterposer;
import dev.chainreaction.fault.RestartExecutor;
import dev.chainreaction.netfilter.Backend;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** A running single-node cluster: its API, its node, and a way to go away without leaving anything behind. */
public interface Cluster extends AutoCloseable {

    KubernetesClient client();

    Node node();

    /** "node-image chainreaction.local/node:3f0c…" — what a report says this cell ran on. */
    String description();

    /** The iptables backend kubelet (and kube-proxy, if any) write their rules to on this node. */
    Backend iptablesBackend();

    /** How "systemctl restart iptables" is carried out on this node. */
    RestartExecutor iptablesRestart();

    /** Installs the kubelet-step interposer where this node's kubelet finds it first. */
    KubeletStepInterposer installInterposer();

    /** Whether kube-proxy programs Services here (false with Cilium's kube-proxy replacement). */
    boolean runsKubeProxy();

    /** Whether Cilium is the CNI here (its agent can be asked). */
    default boolean runsCilium() {
        return false;
    }

    /**
     * The units to restart, in order, to bring kube-proxy and kubelet back from scratch. One process holds both
     * on a k3s node, so one restart there.
     */
    default List<String> resetUnits() {
        return List.of("kube-proxy", "kubelet");
    }

    /** Where curl runs in the node's network namespace: the node itself when it has curl. */
    default Shell curlShell() {
        return node();
    }

    @Override
    void close();
}
