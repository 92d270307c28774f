package dev.chainreaction.probe.cilium;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.cluster.ShellException;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Cilium agent of a node, asked through cilium-dbg in its pod (kube-system, k8s-app=cilium, container
 * cilium-agent). Each call runs the command now and returns what it printed, parsed; nothing is cached or judged.
 */
public final class CiliumAgent {
    public static final String NAMESPACE = "kube-system";
    public static final String CONTAINER = "cilium-agent";
    private static final Duration LIMIT = Duration.ofMinutes(2);

    private final KubernetesClient client;
    private final String pod;

    public CiliumAgent(KubernetesClient client, String pod) {
        this.client = client;
        this.pod = pod;
    }

    /** The Running agent pod on {@code node}; the error lists the agent pods there are and their phases. */
    public static CiliumAgent onNode(KubernetesClient client, String node) {
        List<Pod> agents = client.pods().inNamespace(NAMESPACE).withLabel("k8s-app", "cilium").list().getItems();
        return agents.stream()
                .filter(p -> node == null || node.equals(p.getSpec().getNodeName()))
                .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .findFirst().map(p -> new CiliumAgent(client, p.getMetadata().getName()))
                .orElseThrow(() -> new IllegalStateException("no Running cilium agent pod (kube-system, k8s-app=cilium)"
                        + (node == null ? "" : " on node " + node) + "; there are: " + agents.stream()
                        .map(p -> p.getMetadata().getName() + " on " + p.getSpec().getNodeName() + " "
                                + (p.getStatus() == null ? "?" : p.getStatus().getPhase())).toList()));
    }

    /** The agent of a single-node cluster. */
    public static CiliumAgent of(KubernetesClient client) {
        return onNode(client, null);
    }

    public String pod() {
        return pod;
    }

    /** cilium-dbg status --verbose (the verbose form carries the KubeProxyReplacement Details). */
    public CiliumStatus status() {
        return CiliumStatus.parse(run("cilium-dbg", "status", "--verbose"));
    }

    public CiliumServiceList services() {
        return CiliumServiceList.parse(run("cilium-dbg", "service", "list", "-o", "json"));
    }

    public BpfLbList lbList() {
        return BpfLbList.parse(run("cilium-dbg", "bpf", "lb", "list"));
    }

    public BpfCtList conntrack() {
        return BpfCtList.parse(run("cilium-dbg", "bpf", "ct", "list", "global"));
    }

    public CiliumConfig config() {
        return CiliumConfig.parse(run("cilium-dbg", "config", "-a"));
    }

    /**
     * What a Service without backends answers, as the agent says; the cilium-config ConfigMap's
     * service-no-backend-response where an agent's config -a does not list it (options moved out of DaemonConfig).
     */
    public Optional<String> serviceNoBackendResponse() {
        Optional<String> fromAgent = config().serviceNoBackendResponse();
        if (fromAgent.isPresent()) {
            return fromAgent;
        }
        ConfigMap cm = client.configMaps().inNamespace(NAMESPACE).withName("cilium-config").get();
        return Optional.ofNullable(cm).map(ConfigMap::getData).map(d -> d.get("service-no-backend-response"));
    }

    /** Runs argv in the agent container; never throws for a non-zero exit. */
    public ExecResult exec(List<String> argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        try (ExecWatch watch = client.pods().inNamespace(NAMESPACE).withName(pod).inContainer(CONTAINER)
                .writingOutput(out).writingError(err).exec(argv.toArray(String[]::new))) {
            int code = watch.exitCode().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            return new ExecResult(argv, code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                    Duration.ofNanos(System.nanoTime() - start));
        } catch (TimeoutException e) {
            throw new ShellException("timed out after " + LIMIT.toMinutes() + "m: exec in pod " + NAMESPACE + "/" + pod
                    + " -c " + CONTAINER + ": " + String.join(" ", argv), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShellException("interrupted: exec in pod " + NAMESPACE + "/" + pod + ": " + String.join(" ", argv), e);
        } catch (Exception e) {
            throw new ShellException("exec in pod " + NAMESPACE + "/" + pod + " -c " + CONTAINER + " failed: "
                    + String.join(" ", argv) + ": " + e.getMessage(), e);
        }
    }

    /** The agent container as a {@link Shell}, so netfilter probes (iptables-save) run there as on a node. */
    public Shell shell() {
        return new Shell() {
            @Override
            public ExecResult exec(List<String> argv, String stdin) {
                if (stdin != null) {
                    throw new UnsupportedOperationException("stdin to the cilium agent is not needed by any probe");
                }
                return CiliumAgent.this.exec(argv);
            }

            @Override
            public String name() {
                return "pod " + NAMESPACE + "/" + pod + " (" + CONTAINER + ")";
            }
        };
    }

    private String run(String... argv) {
        return exec(List.of(argv)).orThrow().stdout();
    }
}
