package dev.chainreaction.cluster;

import java.util.List;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A small container joined to a node container's network namespace (docker run --network container:NODE): its
 * tools (curl) see the node's addresses, routes and netfilter exactly as a process on the node does. For nodes
 * whose image lacks them.
 */
public final class NetnsSidecar implements Shell, AutoCloseable {
    private final GenericContainer<?> container;
    private final String nodeName;

    private NetnsSidecar(GenericContainer<?> container, String nodeName) {
        this.container = container;
        this.nodeName = nodeName;
    }

    static NetnsSidecar start(GenericContainer<?> node, String image) {
        GenericContainer<?> sidecar = new GenericContainer<>(DockerImageName.parse(image))
                .withNetworkMode("container:" + node.getContainerId())
                .withCommand("sleep", "2147483647")
                .withLabels(ManagedContainers.labels("netns-sidecar"))
                .withStartupAttempts(1);
        ManagedContainers.track(sidecar);
        try {
            sidecar.start();
        } catch (RuntimeException e) {
            ManagedContainers.remove(sidecar);
            throw new IllegalStateException("cannot start " + image + " in the network namespace of "
                    + node.getContainerName() + ": " + e.getMessage(), e);
        }
        return new NetnsSidecar(sidecar, node.getContainerName().replaceFirst("^/", ""));
    }

    @Override
    public ExecResult exec(List<String> argv, String stdin) {
        return ContainerExec.run(container, argv, stdin);
    }

    @Override
    public String name() {
        return "node " + nodeName + " (netns sidecar)";
    }

    @Override
    public void close() {
        ManagedContainers.remove(container);
    }
}
