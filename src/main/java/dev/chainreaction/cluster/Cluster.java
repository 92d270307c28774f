package dev.chainreaction.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;

/** A running single-node cluster: its API, its node, and a way to go away without leaving anything behind. */
public interface Cluster extends AutoCloseable {

    KubernetesClient client();

    Node node();

    /** "node-image chainreaction.local/node:3f0c…" — what a report says this cell ran on. */
    String description();

    @Override
    void close();
}
