package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where a scenario runs: a way of standing the cluster up × its Service datapath. */
public record Cell(@JsonProperty(required = true) ClusterBackend backend,
                   @JsonProperty(required = true) Flavour flavour) {

    public enum ClusterBackend {
        @JsonProperty("node-image") NODE_IMAGE,
        @JsonProperty("k3s") K3S
    }

    public enum Flavour {
        @JsonProperty("kube-proxy") KUBE_PROXY,
        @JsonProperty("cilium") CILIUM
    }

    public Cell {
        if (backend == ClusterBackend.NODE_IMAGE && flavour == Flavour.CILIUM) {
            throw new IllegalArgumentException("the node-image backend has no cilium flavour; allowed: kube-proxy");
        }
    }

    /** "node-image/kube-proxy", as the summary's matrix names a cell. */
    public String label() {
        return Enums.label(backend) + "/" + Enums.label(flavour);
    }
}
