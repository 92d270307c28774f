package dev.chainreaction.probe.cilium;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The agent's services as {@code cilium-dbg service list -o json} prints them: an array of api/v1 models.Service,
 * {@code {spec: {id, frontend-address, backend-addresses, flags}, status: {realized}}}. Fields not named here
 * (weight, preferred, traffic policies, ...) are ignored, so newer agents read the same.
 */
public record CiliumServiceList(List<Service> services) {
    static final String COMMAND = "cilium-dbg service list -o json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public CiliumServiceList {
        services = List.copyOf(services);
    }

    /** One frontend. {@code realized}: status.realized is present (the datapath has it). */
    public record Service(long id, Frontend frontend, List<Backend> backends, Flags flags, boolean realized) {
        public Service {
            backends = List.copyOf(backends);
        }

        /** Backends as "ip:port", to compare with an EndpointSlice's ready addresses. */
        public List<String> backendAddresses() {
            return backends.stream().map(Backend::address).toList();
        }
    }

    /** protocol as printed ("TCP"; the schema's enum is lower case and matched without case); scope external|internal. */
    public record Frontend(String ip, int port, String protocol, String scope) {
        public String address() {
            return Addresses.hostPort(ip, port);
        }
    }

    /** state: active, terminating, quarantined or maintenance ("" from agents that predate it). */
    public record Backend(String ip, int port, String protocol, String state, Optional<String> nodeName) {
        public String address() {
            return Addresses.hostPort(ip, port);
        }
    }

    /** type: ClusterIP, NodePort, ExternalIPs, HostPort, LoadBalancer or LocalRedirect; name/namespace of the Service. */
    public record Flags(String type, String name, String namespace) {
    }

    /** Frontends at "ip:port", optionally "ip:port/PROTO" (TCP and UDP on :53 are two frontends). */
    public List<Service> withFrontend(String address) {
        String[] parts = address.strip().split("/", 2);
        return services.stream().filter(s -> s.frontend().address().equals(parts[0]))
                .filter(s -> parts.length == 1 || s.frontend().protocol().equalsIgnoreCase(parts[1])).toList();
    }

    /** Every frontend of a Kubernetes Service (its ClusterIP, and per NodePort one per node address). */
    public List<Service> of(String namespace, String name) {
        return services.stream().filter(s -> s.flags().namespace().equals(namespace) && s.flags().name().equals(name)).toList();
    }

    public static CiliumServiceList parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new CiliumParseException(COMMAND + ": not JSON (" + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")", e);
        }
        if (root == null || !root.isArray()) {
            throw new CiliumParseException(COMMAND + ": expected a JSON array of services, got "
                    + (root == null ? "nothing" : root.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)));
        }
        List<Service> services = new ArrayList<>();
        for (int i = 0; i < root.size(); i++) {
            services.add(service(root.get(i), "service #" + i));
        }
        return new CiliumServiceList(services);
    }

    private static Service service(JsonNode node, String where) {
        JsonNode spec = node.path("spec");
        if (!spec.isObject()) {
            throw new CiliumParseException(COMMAND + ": " + where + " has no spec object: " + node);
        }
        JsonNode fe = spec.path("frontend-address");
        if (!fe.isObject()) {
            throw new CiliumParseException(COMMAND + ": " + where + " (id " + spec.path("id").asLong() + ") has no frontend-address");
        }
        Frontend frontend = new Frontend(fe.path("ip").asText(""), port(fe, where), fe.path("protocol").asText(""),
                fe.path("scope").asText(""));
        List<Backend> backends = new ArrayList<>();
        JsonNode bes = spec.path("backend-addresses");
        if (!bes.isMissingNode() && !bes.isNull() && !bes.isArray()) {
            throw new CiliumParseException(COMMAND + ": " + where + " (" + frontend.address() + "): backend-addresses is not an array");
        }
        for (JsonNode be : bes.isArray() ? bes : JSON.createArrayNode()) {
            if (!be.path("ip").isTextual()) {
                throw new CiliumParseException(COMMAND + ": " + where + " (" + frontend.address() + ") has a backend without ip: " + be);
            }
            String nodeName = be.path("nodeName").asText("");
            backends.add(new Backend(be.path("ip").asText(), port(be, where), be.path("protocol").asText(""),
                    be.path("state").asText(""), nodeName.isEmpty() ? Optional.empty() : Optional.of(nodeName)));
        }
        JsonNode flags = spec.path("flags");
        return new Service(spec.path("id").asLong(0), frontend, backends, new Flags(flags.path("type").asText(""),
                flags.path("name").asText(""), flags.path("namespace").asText("")), node.path("status").path("realized").isObject());
    }

    private static int port(JsonNode address, String where) {
        JsonNode p = address.path("port");
        if (!p.isMissingNode() && !p.canConvertToInt()) {
            throw new CiliumParseException(COMMAND + ": " + where + ": port is not a number: " + p);
        }
        return p.asInt(0); // omitempty: a missing port is 0
    }
}
