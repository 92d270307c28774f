package dev.chainreaction.cluster;

import com.github.dockerjava.api.model.Volume;
import dev.chainreaction.fault.KubeletStepInterposer;
import dev.chainreaction.fault.RestartExecutor;
import dev.chainreaction.fault.SystemdRestart;
import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.report.Phase;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * A single-node cluster from the node image (infra/node-image): systemd as PID 1, the control plane and kubelet as
 * units, Azure Linux's iptables.service. Started with Testcontainers' GenericContainer, then brought up in named
 * phases, each with its budget.
 */
public final class NodeImageCluster implements Cluster {
    public static final String IMAGE_PROPERTY = "chainreaction.nodeImage";
    private static final Logger log = LoggerFactory.getLogger(NodeImageCluster.class);
    private static final int API_PORT = 6443;

    private final GenericContainer<?> container;
    private final ContainerNode node;
    private final KubernetesClient client;
    private final String image;
    private final BootTimes bootTimes;

    private NodeImageCluster(GenericContainer<?> container, ContainerNode node, KubernetesClient client, String image,
                             BootTimes bootTimes) {
        this.container = container;
        this.node = node;
        this.client = client;
        this.image = image;
        this.bootTimes = bootTimes;
    }

    /** How long each phase of the boot took: container start to node Ready is the figure that matters. */
    public record BootTimes(Duration containerUp, Duration systemdUp, Duration apiHealthy, Duration nodeReady,
                            Duration total) {
    }

    /** The image tag from -Dchainreaction.nodeImage (infra/bin/test sets it from infra/node-image/build.sh). */
    public static String configuredImage() {
        String image = System.getProperty(IMAGE_PROPERTY, System.getenv("CHAINREACTION_NODE_IMAGE"));
        if (image == null || image.isBlank()) {
            throw new IllegalStateException("no node image configured: build it with infra/node-image/build.sh "
                    + "and pass its tag as -D" + IMAGE_PROPERTY + "=<tag> (infra/bin/test does both)");
        }
        return image;
    }

    public static NodeImageCluster start(String image) {
        requireLocalImage(image);
        ManagedContainers.reapLeftovers();
        String name = "crx-node-" + UUID.randomUUID().toString().substring(0, 6);
        Instant t0 = Instant.now();
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                .withPrivilegedMode(true) // systemd, containerd, runc, iptables and mounts need the full set
                .withTmpFs(Map.of("/run", "rw", "/tmp", "rw")) // systemd wants a fresh, writable /run
                .withExposedPorts(API_PORT)
                .withLabels(ManagedContainers.labels("node"))
                .withStartupAttempts(1)
                .withImagePullPolicy(name1 -> false) // built locally by infra/node-image; there is nothing to pull
                .waitingFor(new ContainerRunning())
                .withCreateContainerCmdModifier(cmd -> {
                    cmd.withName(name).withHostName(name);
                    // containerd's overlayfs snapshotter must not sit on the container's own overlay root
                    cmd.withVolumes(new Volume("/var"));
                    // systemd and kubelet get their own cgroup tree
                    cmd.getHostConfig().withCgroupnsMode("private");
                });
        Phase.run("starting node container " + name + " from " + image, () -> {
            try {
                container.start();
            } catch (ContainerLaunchException e) {
                throw new IllegalStateException("node container did not start (is the image built? run "
                        + "infra/node-image/build.sh): " + e.getMessage(), e);
            }
            return null;
        });
        ManagedContainers.track(container);
        Duration containerUp = Duration.between(t0, Instant.now());
        ContainerNode node = new ContainerNode(container);
        try {
            Duration systemd = Phase.await("systemd running in " + name, Duration.ofMinutes(2), Duration.ofSeconds(1),
                    () -> node.exec("systemctl", "is-system-running").stdout().strip().matches("running|degraded"),
                    () -> !container.isRunning(), "node container exited");
            String state = node.exec("systemctl", "is-system-running").stdout().strip();
            if (!state.equals("running")) {
                log.warn("systemd is {} in {}; failed units:\n{}", state, name,
                        node.exec("systemctl", "--failed", "--no-legend").stdout());
            }
            KubernetesClient client = connect(container, node);
            Duration api = Phase.await("API server healthy", Duration.ofMinutes(3), Duration.ofSeconds(1),
                    () -> client.getKubernetesVersion() != null, () -> !container.isRunning(), "node container exited");
            Duration ready = Phase.await("node " + name + " Ready", Duration.ofMinutes(3), Duration.ofSeconds(1),
                    () -> nodeReady(client, name), () -> !container.isRunning(), "node container exited");
            Phase.await("default ServiceAccount created", Duration.ofMinutes(1), Duration.ofMillis(500),
                    () -> client.serviceAccounts().inNamespace("default").withName("default").get() != null,
                    () -> !container.isRunning(), "node container exited");
            Phase.await("kube-system pods Running", Duration.ofMinutes(2), Duration.ofSeconds(1),
                    () -> client.pods().inNamespace("kube-system").list().getItems().stream().allMatch(NodeImageCluster::running),
                    () -> !container.isRunning(), "node container exited");
            BootTimes times = new BootTimes(containerUp, systemd, api, ready, Duration.between(t0, Instant.now()));
            log.info("node {} Ready {} after container start", name, Phase.human(times.total()));
            return new NodeImageCluster(container, node, client, image, times);
        } catch (RuntimeException e) {
            log.error("node {} did not come up; last kubelet log:\n{}", name, tail(node.journal("kubelet", t0), 40));
            ManagedContainers.remove(container);
            throw e;
        }
    }

    /** The node image is built here, never pulled: fail at once, saying how to build it, rather than try a registry. */
    static void requireLocalImage(String image) {
        try {
            org.testcontainers.DockerClientFactory.instance().client().inspectImageCmd(image).exec();
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            throw new IllegalStateException("node image " + image + " is not present in the local Docker engine; "
                    + "build it with infra/node-image/build.sh (it prints the tag) or run infra/bin/test, which does");
        }
    }

    private static KubernetesClient connect(GenericContainer<?> container, ContainerNode node) {
        Phase.await("admin kubeconfig written", Duration.ofMinutes(2), Duration.ofSeconds(1),
                () -> node.exec("test", "-s", "/etc/kubernetes/admin.conf").succeeded(),
                () -> !container.isRunning(), "node container exited");
        String kubeconfig = node.exec("cat", "/etc/kubernetes/admin.conf").orThrow().stdout()
                .replaceAll("server: https://[^\\s]+", "server: https://" + container.getHost() + ":"
                        + container.getMappedPort(API_PORT));
        Config config = Config.fromKubeconfig(kubeconfig);
        config.setRequestTimeout(30_000);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static boolean nodeReady(KubernetesClient client, String name) {
        var n = client.nodes().withName(name).get();
        return n != null && n.getStatus().getConditions().stream()
                .anyMatch((NodeCondition c) -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    private static boolean running(Pod p) {
        String phase = p.getStatus() == null ? "" : p.getStatus().getPhase();
        return "Running".equals(phase) || "Succeeded".equals(phase);
    }

    private static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    public BootTimes bootTimes() {
        return bootTimes;
    }

    public String containerName() {
        return container.getContainerName().replaceFirst("^/", "");
    }

    @Override
    public KubernetesClient client() {
        return client;
    }

    @Override
    public Node node() {
        return node;
    }

    @Override
    public String description() {
        return "node-image " + image;
    }

    /** The node image's iptables is Debian's iptables-nft, as Azure Linux 3.0's. */
    @Override
    public Backend iptablesBackend() {
        return Backend.NFT;
    }

    /** The real iptables.service of the node, through systemd. */
    @Override
    public RestartExecutor iptablesRestart() {
        return new SystemdRestart(node);
    }

    @Override
    public KubeletStepInterposer installInterposer() {
        return KubeletStepInterposer.install(node);
    }

    @Override
    public boolean runsKubeProxy() {
        return true;
    }

    @Override
    public void close() {
        client.close();
        ManagedContainers.remove(container);
    }

    /** The node container itself is the only thing to wait for here; the phases above do the rest, with reasons. */
    private static final class ContainerRunning extends AbstractWaitStrategy {
        @Override
        protected void waitUntilReady() {
        }
    }

    /** journalctl's --since for an instant, to the microsecond ("@1764698165.087935"; systemd 252 parses it). */
    static String journalSince(Instant since) {
        return String.format(java.util.Locale.ROOT, "@%d.%06d", since.getEpochSecond(), since.getNano() / 1000);
    }

    /** The node as a shell: docker exec into the container. */
    static final class ContainerNode implements Node {
        private final GenericContainer<?> container;

        ContainerNode(GenericContainer<?> container) {
            this.container = container;
        }

        @Override
        public ExecResult exec(List<String> argv, String stdin) {
            return ContainerExec.run(container, argv, stdin);
        }

        @Override
        public String name() {
            return "node " + container.getContainerName().replaceFirst("^/", "");
        }

        /**
         * To the microsecond: a whole-second --since let a kubelet start read the verdict of the start before it
         * when both fell in one second (kubelet-restart-heals read the incident's "failed" for the heal).
         */
        @Override
        public String journal(String unit, Instant since) {
            return exec("journalctl", "-u", unit, "--no-pager", "-o", "short-precise", "--since", journalSince(since)).stdout();
        }

        @Override
        public ExecResult restartService(String unit) {
            return exec("systemctl", "restart", unit).orThrow();
        }

        @Override
        public String ip() {
            return container.getContainerInfo().getNetworkSettings().getNetworks().values().iterator().next().getIpAddress();
        }

        @Override
        public boolean isRunning() {
            return container.isRunning();
        }
    }
}
