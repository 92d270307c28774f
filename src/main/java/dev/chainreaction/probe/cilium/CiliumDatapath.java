package dev.chainreaction.probe.cilium;

import dev.chainreaction.cluster.Shell;
import dev.chainreaction.probe.HttpSample;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What serves a Service when kube-proxy is gone (the Cilium lab's checks), as data: who answers a NodePort, and
 * whether the BPF Service map follows the EndpointSlice. Nothing here judges; the scenario's expectations do.
 */
public final class CiliumDatapath {
    private CiliumDatapath() {
    }

    /**
     * A NodePort answered on the node's address, beside what could have answered it the old way: lines of the
     * node's iptables-save naming the port, and sockets listening on it (read from /proc/net/tcp{,6} in the node's
     * network namespace, since the node may not have ss).
     */
    public record NodePortPath(int port, HttpSample answer, List<String> iptablesLines, List<String> listeners) {
        /** 200 with neither an iptables rule nor a socket for the port: an eBPF program served it. */
        public boolean servedByBpf() {
            return answer.ok() && iptablesLines.isEmpty() && listeners.isEmpty();
        }
    }

    public static NodePortPath nodePort(Shell node, Shell curl, String nodeIp, int port, String iptablesSave) {
        HttpSample answer = HttpSample.get(curl, "http://" + nodeIp + ":" + port + "/", Duration.ofSeconds(5));
        List<String> lines = node.exec(iptablesSave).stdout().lines()
                .filter(l -> l.matches(".*\\b" + port + "\\b.*")).toList();
        String tcp = curl.exec("sh", "-c", "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null").stdout();
        return new NodePortPath(port, answer, lines, listeners(tcp, port));
    }

    /** Listening sockets (state 0A) on {@code port} in /proc/net/tcp format, as "address:port" hex pairs. */
    static List<String> listeners(String procNetTcp, int port) {
        String hexPort = String.format(Locale.ROOT, "%04X", port);
        List<String> found = new ArrayList<>();
        for (String line : procNetTcp.lines().toList()) {
            String[] f = line.strip().split("\\s+");
            if (f.length > 3 && f[0].endsWith(":") && f[3].equals("0A") && f[1].toUpperCase(Locale.ROOT).endsWith(":" + hexPort)) {
                found.add(f[1]);
            }
        }
        return found;
    }

    /** After scaling: when (if) the BPF map's backend slots for the frontend equalled the EndpointSlice's ready addresses. */
    public record ServiceMapSync(int replicas, String frontend, boolean matched, Duration took,
                                 List<String> bpfBackends, List<String> readyEndpoints) {
    }

    /**
     * Scales the deployment and polls (no fixed sleep) until the agent's `bpf lb list` backend slots for
     * {@code frontend} ("ip:port") equal the ready addresses of the Service's EndpointSlices, or {@code within}
     * passes; returns the last pair seen either way.
     */
    public static ServiceMapSync scaleAndCompare(KubernetesClient client, CiliumAgent agent, String namespace,
                                                 String deployment, String service, int replicas, String frontend,
                                                 int targetPort, Duration within) {
        client.apps().deployments().inNamespace(namespace).withName(deployment).scale(replicas);
        Instant start = Instant.now();
        List<String>[] last = new List[] {List.of(), List.of()};
        boolean matched;
        try {
            Awaitility.await("BPF Service map for " + frontend + " equals the ready endpoints of " + service
                            + " at " + replicas + " replicas")
                    .atMost(within.toMillis(), TimeUnit.MILLISECONDS).pollInterval(1, TimeUnit.SECONDS)
                    .ignoreExceptions().until(() -> {
                        last[0] = agent.lbList().backendsOf(frontend).stream().map(BpfLbList.BackendSlot::address).sorted().toList();
                        last[1] = readyAddresses(client, namespace, service, targetPort);
                        return last[1].size() == replicas && last[0].equals(last[1]);
                    });
            matched = true;
        } catch (ConditionTimeoutException e) {
            matched = false;
        }
        return new ServiceMapSync(replicas, frontend, matched, Duration.between(start, Instant.now()), last[0], last[1]);
    }

    static List<String> readyAddresses(KubernetesClient client, String namespace, String service, int port) {
        TreeSet<String> addresses = new TreeSet<>();
        client.discovery().v1().endpointSlices().inNamespace(namespace)
                .withLabel("kubernetes.io/service-name", service).list().getItems().forEach(slice -> {
                    for (Endpoint e : Optional.ofNullable(slice.getEndpoints()).orElse(List.of())) {
                        if (e.getConditions() != null && Boolean.TRUE.equals(e.getConditions().getReady())) {
                            e.getAddresses().forEach(a -> addresses.add(a + ":" + port));
                        }
                    }
                });
        return List.copyOf(addresses);
    }
}
