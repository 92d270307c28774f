package dev.chainreaction.cluster;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Who serves Services on a k3s node: k3s's embedded kube-proxy (iptables mode), or Cilium replacing it. */
public enum K3sFlavour {
    KUBE_PROXY,
    CILIUM;

    /** "kube-proxy" or "cilium", as scenario files and reports spell it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static K3sFlavour fromLabel(String label) {
        return Arrays.stream(values()).filter(f -> f.label().equals(label)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown k3s flavour '" + label + "', allowed: kube-proxy, cilium"));
    }

    /**
     * The k3s command line after the image's /bin/k3s. It replaces Testcontainers' default command whole, so
     * that default's --disable=traefik and --tls-san are repeated here.
     */
    public List<String> serverArgs(String tlsSan) {
        String san = "--tls-san=" + tlsSan; // the API certificate must name the host the client connects to
        return switch (this) {
            case KUBE_PROXY -> List.of("server",
                    "--disable=traefik", // no ingress needed; one less set of pods and rules
                    san,
                    "--kube-proxy-arg=conntrack-max-per-core=0"); // leave nf_conntrack_max alone: it is the host's, and read-only on some
            case CILIUM -> List.of("server",
                    "--flannel-backend=none", // Cilium is the CNI (Cilium's k3s guide)
                    "--disable-network-policy", // Cilium enforces NetworkPolicy
                    "--disable-kube-proxy", // Cilium's kube-proxy replacement serves Services
                    "--disable=traefik",
                    "--disable=servicelb", // klipper-lb would program LoadBalancer Services behind Cilium's back
                    san);
        };
    }
}
