package dev.chainreaction.cluster;

import java.util.Locale;
import java.util.Set;

/**
 * Cilium as k3s installs it: a helm.cattle.io/v1 HelmChart placed in /var/lib/rancher/k3s/server/manifests, which
 * k3s's helm-controller applies. Kube-proxy replacement on, the API server reached at the node's own address
 * (no kube-proxy means no "kubernetes" Service until Cilium itself serves it), and the answer of a Service without
 * backends chosen per cell.
 */
public record CiliumHelmChart(String chartVersion, String k8sServiceHost, int k8sServicePort, String serviceNoBackendResponse) {
    public static final String DEFAULT_VERSION = "1.18.4";
    public static final String VERSION_PROPERTY = "chainreaction.ciliumVersion";
    public static final String NO_BACKEND_PROPERTY = "chainreaction.serviceNoBackendResponse";
    public static final String REPO = "https://helm.cilium.io/";
    public static final String MANIFEST_PATH = "/var/lib/rancher/k3s/server/manifests/cilium.yaml";
    private static final Set<String> NO_BACKEND = Set.of("reject", "drop");

    public CiliumHelmChart {
        if (chartVersion == null || !chartVersion.matches("\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.]+)?")) {
            throw new IllegalArgumentException("Cilium chart version must look like 1.18.4, got: " + chartVersion);
        }
        if (k8sServiceHost == null || !k8sServiceHost.matches("[0-9A-Za-z.:-]+")) {
            throw new IllegalArgumentException("k8sServiceHost must be an address or host name, got: " + k8sServiceHost);
        }
        if (k8sServicePort < 1 || k8sServicePort > 65535) {
            throw new IllegalArgumentException("k8sServicePort must be 1-65535, got: " + k8sServicePort);
        }
        serviceNoBackendResponse = serviceNoBackendResponse == null ? null : serviceNoBackendResponse.toLowerCase(Locale.ROOT);
        if (!NO_BACKEND.contains(serviceNoBackendResponse)) {
            throw new IllegalArgumentException("serviceNoBackendResponse must be reject or drop, got: " + serviceNoBackendResponse);
        }
    }

    /** -Dchainreaction.ciliumVersion, else {@link #DEFAULT_VERSION}. */
    public static String configuredVersion() {
        return System.getProperty(VERSION_PROPERTY, DEFAULT_VERSION);
    }

    /** -Dchainreaction.serviceNoBackendResponse (reject|drop), else Cilium's default, reject. */
    public static String configuredNoBackendResponse() {
        return System.getProperty(NO_BACKEND_PROPERTY, "reject");
    }

    public String manifest() {
        return """
                # Written by chainreaction (K3sCluster); k3s's helm-controller installs Cilium from it.
                apiVersion: helm.cattle.io/v1
                kind: HelmChart
                metadata:
                  name: cilium
                  namespace: kube-system
                spec:
                  repo: %s
                  chart: cilium
                  version: "%s"
                  targetNamespace: kube-system
                  # there is no CNI yet: the install job runs on the host network and tolerates the not-ready node
                  bootstrap: true
                  valuesContent: |-
                    kubeProxyReplacement: true
                    k8sServiceHost: "%s"
                    k8sServicePort: %d
                    serviceNoBackendResponse: %s
                    ipam:
                      # the node's podCIDR, which k3s's controller-manager allocates (10.42.0.0/24)
                      mode: kubernetes
                    operator:
                      # one node: a second operator replica would stay Pending
                      replicas: 1
                    cni:
                      # k3s's containerd reads CNI from its own directories, not /opt/cni/bin and /etc/cni/net.d
                      binPath: /var/lib/rancher/k3s/data/current/bin
                      confPath: /var/lib/rancher/k3s/agent/etc/cni/net.d
                """.formatted(REPO, chartVersion, k8sServiceHost, k8sServicePort, serviceNoBackendResponse);
    }
}
