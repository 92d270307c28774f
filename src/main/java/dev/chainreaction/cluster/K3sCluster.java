package dev.chainreaction.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Frame;
import dev.chainreaction.fault.IptablesServiceRestart;
import dev.chainreaction.fault.KubeletStepInterposer;
import dev.chainreaction.fault.RestartExecutor;
import dev.chainreaction.fault.SavedRules;
import dev.chainreaction.fault.ScriptedRestart;
import dev.chainreaction.fault.SystemdRestart;
import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.report.Phase;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A single-node k3s cluster in one container (Testcontainers' K3sContainer), in one of two flavours: k3s's embedded
 * kube-proxy, or Cilium with kube-proxy replacement installed by k3s's helm-controller. k3s runs under a small
 * restart loop instead of as PID 1, so "restarting kubelet" restarts the k3s process (which embeds kubelet,
 * kube-proxy and containerd) inside the same container and network namespace, as {@code systemctl restart k3s}
 * does on a real k3s node: pods and iptables state survive; a container restart would lose both. The image has
 * no systemd, so "systemctl restart iptables" is {@link ScriptedRestart} through the node's own iptables tools.
 */
public final class K3sCluster implements Cluster {
    public static final String IMAGE_PROPERTY = "chainreaction.k3sImage";
    public static final String DEFAULT_IMAGE = "rancher/k3s:v1.34.2-k3s1";
    static final String PID_FILE = "/run/chainreaction-k3s.pid";
    static final String KUBECONFIG = "/etc/rancher/k3s/k3s.yaml";
    private static final Logger log = LoggerFactory.getLogger(K3sCluster.class);
    private static final int API_PORT = 6443;

    private final NodeContainer container;
    private final K3sNode node;
    private final KubernetesClient client;
    private final Options options;
    private NetnsSidecar curl;

    private K3sCluster(NodeContainer container, K3sNode node, KubernetesClient client, Options options) {
        this.container = container;
        this.node = node;
        this.client = client;
        this.options = options;
    }

    /**
     * What a k3s cell runs on. {@code iptablesMode} is passed as IPTABLES_MODE, so the bundled iptables-detect.sh
     * does not guess (it picks legacy in a fresh container on a cgroup v1 host, nft on v2).
     */
    public record Options(String image, K3sFlavour flavour, Backend iptablesMode, String ciliumVersion,
                          String serviceNoBackendResponse) {
        public Options {
            Objects.requireNonNull(image, "image");
            Objects.requireNonNull(flavour, "flavour");
            Objects.requireNonNull(iptablesMode, "iptablesMode");
            // validated here, where the node's address is not known yet, so a bad value fails before any container
            new CiliumHelmChart(ciliumVersion, "127.0.0.1", API_PORT, serviceNoBackendResponse);
        }

        /** From the system properties (-Dchainreaction.k3sImage, .ciliumVersion, .serviceNoBackendResponse), nft. */
        public static Options of(K3sFlavour flavour) {
            return new Options(configuredImage(), flavour, Backend.NFT, CiliumHelmChart.configuredVersion(),
                    CiliumHelmChart.configuredNoBackendResponse());
        }

        public Options withServiceNoBackendResponse(String response) {
            return new Options(image, flavour, iptablesMode, ciliumVersion, response);
        }

        public Options withIptablesMode(Backend mode) {
            return new Options(image, flavour, mode, ciliumVersion, serviceNoBackendResponse);
        }

        CiliumHelmChart chart(String nodeAddress) {
            return new CiliumHelmChart(ciliumVersion, nodeAddress, API_PORT, serviceNoBackendResponse);
        }
    }

    /** -Dchainreaction.k3sImage (or CHAINREACTION_K3S_IMAGE), else {@link #DEFAULT_IMAGE}. */
    public static String configuredImage() {
        String image = System.getProperty(IMAGE_PROPERTY, System.getenv("CHAINREACTION_K3S_IMAGE"));
        return image == null || image.isBlank() ? DEFAULT_IMAGE : image;
    }

    public static K3sCluster start(K3sFlavour flavour) {
        return start(Options.of(flavour));
    }

    /**
     * Starts the node and waits, phase by phase, until it serves: API healthy, (cilium) the agent Running and
     * Ready, node Ready, kube-system pods Running. Throws {@link K3sImages.UnavailableException} with the reason
     * when the k3s image cannot be had here.
     */
    public static K3sCluster start(Options options) {
        K3sImages.availability(options.image()).orThrow();
        ManagedContainers.reapLeftovers();
        String name = "crx-k3s-" + UUID.randomUUID().toString().substring(0, 6);
        NodeContainer container = new NodeContainer(options, name);
        Instant t0 = Instant.now();
        ManagedContainers.track(container);
        Phase.run("starting k3s node " + name + " (" + options.flavour().label() + ") from " + options.image(), () -> {
            try {
                container.start();
            } catch (ContainerLaunchException e) {
                ManagedContainers.remove(container);
                throw new IllegalStateException("k3s node container did not start: " + e.getMessage(), e);
            }
            return null;
        });
        K3sNode node = new K3sNode(container);
        KubernetesClient client = null;
        try {
            client = connect(container);
            awaitServing(client, container, name, options.flavour());
            log.info("k3s node {} ({}) serving {} after container start", name, options.flavour().label(),
                    Phase.human(Duration.between(t0, Instant.now())));
            return new K3sCluster(container, node, client, options);
        } catch (RuntimeException e) {
            log.error("k3s node {} did not come up; last k3s log:\n{}", name, tail(node.journal("k3s", t0), 60));
            RuntimeException reported = e;
            if (client != null && e instanceof Phase.PhaseTimeoutException) {
                reported = new IllegalStateException(e.getMessage() + "; kube-system: " + podProblems(client), e);
            }
            if (client != null) {
                client.close();
            }
            ManagedContainers.remove(container);
            throw reported;
        }
    }

    private static KubernetesClient connect(K3sContainer container) {
        Config config = Config.fromKubeconfig(container.getKubeConfigYaml()); // server rewritten to the mapped port
        config.setRequestTimeout(30_000);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static void awaitServing(KubernetesClient client, NodeContainer container, String name, K3sFlavour flavour) {
        Callable<Boolean> gone = () -> !container.isRunning();
        Phase.await("API server healthy", Duration.ofMinutes(3), Duration.ofSeconds(1),
                () -> client.getKubernetesVersion() != null, gone, "k3s node container exited");
        if (flavour == K3sFlavour.CILIUM) {
            // the node stays NotReady until Cilium writes its CNI config, so the agent comes first
            Phase.await("cilium agent Running and Ready (images pulled, chart " + container.options.ciliumVersion() + ")",
                    Duration.ofMinutes(8), Duration.ofSeconds(2), () -> ciliumAgentReady(client), gone, "k3s node container exited");
        }
        Phase.await("node " + name + " Ready", Duration.ofMinutes(3), Duration.ofSeconds(1),
                () -> nodeReady(client, name), gone, "k3s node container exited");
        Phase.await("default ServiceAccount created", Duration.ofMinutes(1), Duration.ofMillis(500),
                () -> client.serviceAccounts().inNamespace("default").withName("default").get() != null, gone,
                "k3s node container exited");
        Phase.await("kube-system pods Running", Duration.ofMinutes(4), Duration.ofSeconds(2),
                () -> client.pods().inNamespace("kube-system").list().getItems().stream().allMatch(K3sCluster::runningOrDone),
                gone, "k3s node container exited");
    }

    static boolean ciliumAgentReady(KubernetesClient client) {
        List<Pod> agents = client.pods().inNamespace("kube-system").withLabel("k8s-app", "cilium").list().getItems();
        return !agents.isEmpty() && agents.stream().allMatch(p -> "Running".equals(phase(p)) && ready(p));
    }

    private static boolean nodeReady(KubernetesClient client, String name) {
        var n = client.nodes().withName(name).get();
        return n != null && n.getStatus().getConditions().stream()
                .anyMatch((NodeCondition c) -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    private static boolean runningOrDone(Pod p) {
        return "Running".equals(phase(p)) || "Succeeded".equals(phase(p));
    }

    private static boolean ready(Pod p) {
        return p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch((PodCondition c) -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? "" : p.getStatus().getPhase();
    }

    /** "cilium-x7k2p Pending (cilium-agent: ErrImagePull: failed to pull ...)" for every pod not yet serving. */
    static String podProblems(KubernetesClient client) {
        try {
            List<String> problems = new ArrayList<>();
            for (Pod p : client.pods().inNamespace("kube-system").list().getItems()) {
                if (runningOrDone(p) && ready(p) || "Succeeded".equals(phase(p))) {
                    continue;
                }
                List<ContainerStatus> statuses = new ArrayList<>();
                if (p.getStatus() != null) {
                    Optional.ofNullable(p.getStatus().getInitContainerStatuses()).ifPresent(statuses::addAll);
                    Optional.ofNullable(p.getStatus().getContainerStatuses()).ifPresent(statuses::addAll);
                }
                String waiting = statuses.stream().filter(s -> s.getState() != null && s.getState().getWaiting() != null)
                        .map(s -> s.getName() + ": " + s.getState().getWaiting().getReason()
                                + Optional.ofNullable(s.getState().getWaiting().getMessage()).map(m -> ": " + m).orElse(""))
                        .collect(Collectors.joining("; "));
                problems.add(p.getMetadata().getName() + " " + phase(p) + (waiting.isEmpty() ? "" : " (" + waiting + ")"));
            }
            return problems.isEmpty() ? "all pods serving" : String.join(", ", problems);
        } catch (RuntimeException e) {
            return "(cannot list pods: " + e.getMessage() + ")";
        }
    }

    /**
     * PID 1 of the node: shields the host's kernel settings, (cilium) mounts the node's own bpffs, then runs k3s
     * under {@link #restartLoop()} with the container's command as its arguments.
     */
    static String supervisorScript(K3sFlavour flavour) {
        return kernelSettingsShield() + (flavour == K3sFlavour.CILIUM ? bpffs() : "") + restartLoop();
    }

    /**
     * The container is privileged, so /proc/sys outside net is the host's, and kubelet writes these when they
     * differ (setupKernelTunables). Read-only files holding the values kubelet wants are bind-mounted over
     * exactly those paths, as the node image's entrypoint does: kubelet reads what it wants and writes nothing.
     */
    static String kernelSettingsShield() {
        return """
                mkdir -p /run/chainreaction/sysctl
                shadow() {
                  [ -e "/proc/sys/$1" ] || return 0
                  f=/run/chainreaction/sysctl/$(echo "$1" | tr / .)
                  printf '%s\\n' "$2" > "$f"
                  mount --bind "$f" "/proc/sys/$1" && mount -o remount,bind,ro "/proc/sys/$1"
                }
                shadow vm/overcommit_memory 1
                shadow vm/panic_on_oom 0
                shadow kernel/panic 10
                shadow kernel/panic_on_oops 1
                shadow kernel/keys/root_maxkeys 1000000
                shadow kernel/keys/root_maxbytes 25000000
                """;
    }

    /**
     * A bpffs of the node's own, made shared so the agent's Bidirectional mount of /sys/fs/bpf propagates (as
     * k3d's Cilium guide does), rather than the host's bind-mounted: the pins Cilium leaves there then go with
     * the container instead of outliving it on the host.
     */
    static String bpffs() {
        return """
                grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpffs /sys/fs/bpf
                mount --make-shared /sys/fs/bpf
                """;
    }

    /**
     * Runs k3s ("$@"), starts it again whenever it exits (restartService), passes TERM on to it (docker stop).
     * The interposer's directory leads k3s's PATH (k3s puts its own bin/ before and bin/aux after it), so the
     * embedded kubelet's iptables calls pass through it once it is installed, and straight to /bin/aux before.
     */
    static String restartLoop() {
        return """
                stop=0
                pid=
                trap 'stop=1; [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null' TERM INT
                while [ "$stop" = 0 ]; do
                  PATH=%2$s:$PATH /bin/k3s "$@" &
                  pid=$!
                  echo "$pid" > %1$s
                  wait "$pid"
                  rc=$?
                  if [ "$stop" = 1 ]; then wait "$pid" 2>/dev/null; exit 0; fi
                  echo "chainreaction: k3s (pid $pid) exited with status $rc; starting it again" >&2
                  sleep 1
                done
                """.formatted(PID_FILE, KubeletStepInterposer.binDir());
    }

    /** Stops k3s (TERM, KILL after 90 s) and waits until the loop has started a new one; prints both pids. */
    static String restartScript() {
        return """
                old=$(cat %1$s) || exit 1
                kill -TERM "$old" || exit 1
                i=0
                while kill -0 "$old" 2>/dev/null; do
                  i=$((i+1))
                  if [ "$i" = 90 ]; then kill -KILL "$old"; fi
                  if [ "$i" -ge 120 ]; then echo "k3s (pid $old) did not exit" >&2; exit 1; fi
                  sleep 1
                done
                i=0
                while [ "$(cat %1$s)" = "$old" ]; do
                  i=$((i+1))
                  if [ "$i" -ge 30 ]; then echo "k3s was not started again" >&2; exit 1; fi
                  sleep 1
                done
                echo "k3s restarted: pid $old -> $(cat %1$s)"
                """.formatted(PID_FILE);
    }

    /** Waits until the node serves again, as after {@link Node#restartService} of kubelet/k3s. */
    public void awaitServing() {
        awaitServing(client, container, node.hostname(), options.flavour());
    }

    /**
     * Loads an image of the local Docker engine into the node's containerd (the lab's images are built here,
     * pulled by nobody): docker save, copy in, k3s ctr import.
     */
    public void loadImage(String image) {
        Phase.run("loading image " + image + " into k3s node " + node.hostname(), () -> {
            DockerClient docker = DockerClientFactory.instance().client();
            String tar = "/tmp/chainreaction-image-" + UUID.randomUUID() + ".tar";
            DockerImageName name = DockerImageName.parse(image);
            try (InputStream in = docker.saveImageCmd(name.getUnversionedPart()).withTag(name.getVersionPart()).exec()) {
                container.copyFileToContainer(Transferable.of(in.readAllBytes()), tar);
            }
            node.exec("sh", "-c", "k3s ctr -n k8s.io images import " + tar + "; rc=$?; rm -f " + tar + "; exit $rc").orThrow();
            return null;
        });
    }

    /** "systemctl restart iptables" on this node: Azure Linux's steps, scripted through the node's own tools. */
    public RestartExecutor iptablesRestart() {
        return new ScriptedRestart(node);
    }

    public Options options() {
        return options;
    }

    public String containerName() {
        return node.hostname();
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
        String d = "k3s " + options.image() + " " + options.flavour().label() + " (iptables " + options.iptablesMode().label() + ")";
        return options.flavour() == K3sFlavour.CILIUM
                ? d + ", Cilium " + options.ciliumVersion() + " serviceNoBackendResponse=" + options.serviceNoBackendResponse()
                : d;
    }

    @Override
    public Backend iptablesBackend() {
        return options.iptablesMode();
    }

    @Override
    public KubeletStepInterposer installInterposer() {
        return KubeletStepInterposer.installOnPath(node);
    }

    @Override
    public boolean runsKubeProxy() {
        return options.flavour() == K3sFlavour.KUBE_PROXY;
    }

    @Override
    public boolean runsCilium() {
        return options.flavour() == K3sFlavour.CILIUM;
    }

    /** kubelet and kube-proxy are one k3s process: one restart brings both back. */
    @Override
    public List<String> resetUnits() {
        return List.of("k3s");
    }

    /** The k3s image has no curl: a probe container in the node's network namespace has, and sees what it sees. */
    @Override
    public synchronized Shell curlShell() {
        if (curl == null) {
            curl = NetnsSidecar.start(container, Workloads.PROBE_IMAGE);
        }
        return curl;
    }

    @Override
    public void close() {
        client.close();
        if (curl != null) {
            curl.close();
        }
        ManagedContainers.remove(container);
    }

    /** Testcontainers' K3sContainer with the flavour's command, under the restart loop, labelled as ours. */
    static final class NodeContainer extends K3sContainer {
        private final Options options;

        NodeContainer(Options options, String name) {
            super(DockerImageName.parse(options.image()).asCompatibleSubstituteFor("rancher/k3s"));
            this.options = options;
            withCommand(options.flavour().serverArgs(getHost()).toArray(String[]::new));
            withEnv("IPTABLES_MODE", options.iptablesMode().label());
            withLabels(ManagedContainers.labels("k3s"));
            // the node's saved rules, as iptables.service would restore them: what "a snapshot taken earlier" is here
            withCopyToContainer(Transferable.of(SavedRules.resource(K3sCluster.class, "k3s-ip4save")), SystemdRestart.IP4SAVE);
            withCopyToContainer(Transferable.of(SavedRules.resource(SavedRules.class, "azurelinux-ip6save")), SystemdRestart.IP6SAVE);
            withStartupAttempts(1);
            // the kubeconfig is written once the API server is up; the readiness phases take it from there
            waitingFor(Wait.forSuccessfulCommand("test -s " + KUBECONFIG).withStartupTimeout(Duration.ofMinutes(3)));
            withCreateContainerCmdModifier(cmd -> {
                cmd.withName(name).withHostName(name); // the node is named after its hostname
                cmd.withEntrypoint("/bin/sh", "-c", supervisorScript(options.flavour()), "chainreaction-k3s");
            });
        }

        @Override
        protected void containerIsStarting(InspectContainerResponse info) {
            super.containerIsStarting(info);
            if (options.flavour() == K3sFlavour.CILIUM) {
                // k3s's deploy controller watches the manifests directory, so the chart may arrive after k3s started
                String address = info.getNetworkSettings().getNetworks().values().iterator().next().getIpAddress();
                copyFileToContainer(Transferable.of(options.chart(address).manifest().getBytes(StandardCharsets.UTF_8)),
                        CiliumHelmChart.MANIFEST_PATH);
            }
        }
    }

    /** The node as a shell: docker exec into the k3s container; its "journal" is the container's log. */
    static final class K3sNode implements Node {
        private final NodeContainer container;

        K3sNode(NodeContainer container) {
            this.container = container;
        }

        String hostname() {
            return container.getContainerName().replaceFirst("^/", "");
        }

        @Override
        public ExecResult exec(List<String> argv, String stdin) {
            return ContainerExec.run(container, argv, stdin);
        }

        @Override
        public String name() {
            return "node " + hostname();
        }

        /** k3s logs every embedded component to one stream: the unit is not separable, so all of it since then. */
        @Override
        public String journal(String unit, Instant since) {
            StringBuilder out = new StringBuilder();
            try (ResultCallback.Adapter<Frame> callback = new ResultCallback.Adapter<>() {
                @Override
                public void onNext(Frame frame) {
                    out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                }
            }) {
                DockerClientFactory.instance().client().logContainerCmd(container.getContainerId())
                        .withStdOut(true).withStdErr(true).withTimestamps(true).withSince((int) since.getEpochSecond()).exec(callback)
                        .awaitCompletion(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                out.append("(cannot read the k3s log: ").append(e.getMessage()).append(")\n");
            }
            return linesSince(out.toString(), since);
        }

        /**
         * kubelet, kube-proxy, containerd and k3s all live in the k3s process: each restarts k3s (pods keep running,
         * iptables state stays). "iptables" is Azure Linux's restart restoring a snapshot taken when it fires.
         */
        @Override
        public ExecResult restartService(String unit) {
            return switch (unit.toLowerCase(Locale.ROOT)) {
                case "kubelet", "k3s", "kube-proxy", "containerd" -> exec("sh", "-c", restartScript()).orThrow();
                case "iptables" -> new ScriptedRestart(this).restart(new IptablesServiceRestart(backend(),
                        new SavedRules.SnapshotNow(), Duration.ZERO)).steps().get(0);
                default -> throw new ShellException("no unit '" + unit + "' on a k3s node (it has no systemd); restartable: "
                        + "kubelet, k3s, kube-proxy, containerd (each restarts the k3s process), iptables (scripted)");
            };
        }

        private Backend backend() {
            return container.options.iptablesMode();
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

    /**
     * The lines of a timestamped container log ("2026-12-02T17:56:05.087935123Z text") at or after {@code since},
     * without their timestamps: the engine's --since counts whole seconds only, so a start could read the line of
     * the start before it in the same second.
     */
    static String linesSince(String timestamped, Instant since) {
        StringBuilder kept = new StringBuilder();
        for (String line : timestamped.split("\n")) {
            int space = line.indexOf(' ');
            if (space <= 0) {
                continue;
            }
            try {
                if (!Instant.parse(line.substring(0, space)).isBefore(since)) {
                    kept.append(line, space + 1, line.length()).append('\n');
                }
            } catch (java.time.format.DateTimeParseException e) {
                kept.append(line).append('\n'); // our own "(cannot read the k3s log ...)" note
            }
        }
        return kept.toString();
    }

    private static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
