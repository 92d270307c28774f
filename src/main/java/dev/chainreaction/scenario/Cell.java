package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where a scenario runs: a way of standing the cluster up × its Service datapath. */
public record Cell(@JsonProperty(required = true) ClusterBackend backend,
                   @JsonProperty(required = true) Flavour flavour,
                   NoBackendResponse serviceNoBackendResponse) {

    public enum ClusterBackend {
        @JsonProperty("node-image") NODE_IMAGE,
        @JsonProperty("k3s") K3S
    }

    public enum Flavour {
        @JsonProperty("kube-proxy") KUBE_PROXY,
        @JsonProperty("cilium") CILIUM
    }

    /** Cilium's answer for a Service without backends (its serviceNoBackendResponse setting). */
    public enum NoBackendResponse {
        @JsonProperty("reject") REJECT,
        @JsonProperty("drop") DROP
    }

    public Cell(ClusterBackend backend, Flavour flavour) {
        this(backend, flavour, null);
    }

    public Cell {
        if (backend == ClusterBackend.NODE_IMAGE && flavour == Flavour.CILIUM) {
            throw new IllegalArgumentException("the node-image backend has no cilium flavour; allowed: kube-proxy");
        }
        if (serviceNoBackendResponse != null && flavour != Flavour.CILIUM) {
            throw new IllegalArgumentException("serviceNoBackendResponse is Cilium's setting; only a cilium cell takes it");
        }
    }

    /** "node-image/kube-proxy", as the summary's matrix names a cell. */
    public String label() {
        return Enums.label(backend) + "/" + Enums.label(flavour)
                + (serviceNoBackendResponse == null ? "" : "(" + Enums.label(serviceNoBackendResponse) + ")");
    }

    /** reject unless the cell says otherwise (Cilium's default). */
    public NoBackendResponse serviceNoBackendResponseOrDefault() {
        return serviceNoBackendResponse == null ? NoBackendResponse.REJECT : serviceNoBackendResponse;
    }
}
