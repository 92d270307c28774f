package dev.chainreaction.cluster;

import dev.chainreaction.report.Phase;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The workloads of the lab (incident.md §2): Deployment "web" behind a ClusterIP and a NodePort Service, a Service
 * "ghost" whose selector matches nothing, and a "client" pod with curl. Images are built here (infra/images).
 */
public final class Workloads {
    public static final String HTTPD_IMAGE = "chainreaction.local/httpd:1";
    public static final String PROBE_IMAGE = "chainreaction.local/probe:1";
    /** What the httpd image answers on every path. */
    public static final String WEB_BODY = "chainreaction-web";
    public static final int WEB_PORT = 8080;
    private static final String EXIT_MARKER = "__chainreaction_exit=";

    private final KubernetesClient client;
    private final String namespace;

    public Workloads(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    public String namespace() {
        return namespace;
    }

    public Workloads createNamespace() {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
                .createOr(r -> r.update());
        return this;
    }

    /** Deployment "web" with the given replicas; waits until they are ready. */
    public void deployWeb(int replicas) {
        client.apps().deployments().inNamespace(namespace).resource(new DeploymentBuilder()
                .withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withReplicas(replicas)
                .withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "web")).endMetadata()
                .withNewSpec().withTerminationGracePeriodSeconds(0L).addNewContainer().withName("httpd").withImage(HTTPD_IMAGE)
                .withImagePullPolicy("Never").addNewPort().withContainerPort(WEB_PORT).endPort()
                .withNewReadinessProbe().withNewHttpGet().withPath("/").withPort(new IntOrString(WEB_PORT)).endHttpGet()
                .withPeriodSeconds(1).endReadinessProbe()
                .endContainer().endSpec().endTemplate().endSpec().build()).serverSideApply();
        Phase.await("deployment " + namespace + "/web has " + replicas + " ready replicas", Duration.ofMinutes(2),
                Duration.ofSeconds(1), () -> {
                    var d = client.apps().deployments().inNamespace(namespace).withName("web").get();
                    Integer ready = d.getStatus() == null ? null : d.getStatus().getReadyReplicas();
                    return ready != null && ready == replicas;
                }, () -> false, "");
    }

    /** A Service selecting "app" pods; type ClusterIP or NodePort (nodePort 0 = allocated). */
    public Service expose(String name, String selectorApp, String type, int nodePort) {
        var port = new io.fabric8.kubernetes.api.model.ServicePortBuilder().withName("http").withPort(80)
                .withTargetPort(new IntOrString(WEB_PORT)).withProtocol("TCP");
        if (nodePort > 0) {
            port.withNodePort(nodePort);
        }
        return client.services().inNamespace(namespace).resource(new ServiceBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withType(type).withSelector(Map.of("app", selectorApp)).withPorts(port.build()).endSpec()
                .build()).serverSideApply();
    }

    /** A long-running pod with curl, for requests from inside the pod network. */
    public Pod startClient(String name) {
        client.pods().inNamespace(namespace).resource(new PodBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withTerminationGracePeriodSeconds(0L).addNewContainer().withName("probe").withImage(PROBE_IMAGE)
                .withImagePullPolicy("Never").endContainer().endSpec().build()).serverSideApply();
        return client.pods().inNamespace(namespace).withName(name).waitUntilReady(2, TimeUnit.MINUTES);
    }

    /**
     * Runs a command in a pod's first container and returns how it ended (fabric8 exec). The exit status travels
     * in-band on stderr: with a non-zero exit the API server may close the exec stream before its status arrives.
     */
    public ExecResult execInPod(String pod, List<String> argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        List<String> wrapped = new java.util.ArrayList<>(List.of("sh", "-c", "\"$@\"; echo \"" + EXIT_MARKER + "$?\" >&2", "sh"));
        wrapped.addAll(argv);
        try (ExecWatch watch = client.pods().inNamespace(namespace).withName(pod).writingOutput(out).writingError(err)
                .exec(wrapped.toArray(String[]::new))) {
            watch.exitCode().get(2, TimeUnit.MINUTES);
            String stderr = err.toString(StandardCharsets.UTF_8);
            int at = stderr.lastIndexOf(EXIT_MARKER);
            if (at < 0) {
                throw new ShellException("exec in pod " + namespace + "/" + pod + " ended without an exit status: " + String.join(" ", argv));
            }
            int code = Integer.parseInt(stderr.substring(at + EXIT_MARKER.length()).strip());
            return new ExecResult(argv, code, out.toString(StandardCharsets.UTF_8), stderr.substring(0, at),
                    Duration.ofNanos(System.nanoTime() - start));
        } catch (Exception e) {
            throw new ShellException("exec in pod " + namespace + "/" + pod + " failed: " + String.join(" ", argv), e);
        }
    }

    /** The pod as a {@link Shell}, so probes run the same way from a pod as from a node. */
    public Shell podShell(String pod) {
        return new Shell() {
            @Override
            public ExecResult exec(List<String> argv, String stdin) {
                if (stdin != null) {
                    throw new UnsupportedOperationException("stdin to pod exec is not needed by any probe");
                }
                return execInPod(pod, argv);
            }

            @Override
            public String name() {
                return "pod " + namespace + "/" + pod;
            }
        };
    }

    public void deleteNamespace() {
        client.namespaces().withName(namespace).delete();
    }
}
