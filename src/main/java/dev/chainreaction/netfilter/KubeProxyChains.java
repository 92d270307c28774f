package dev.chainreaction.netfilter;

import dev.chainreaction.netfilter.NetfilterObject.ChainObject;
import dev.chainreaction.netfilter.NetfilterObject.RuleObject;
import java.util.List;
import java.util.Optional;

/** What kube-proxy in iptables mode owns (pkg/proxy/iptables/proxier.go); per-service chains carry hashes. */
public final class KubeProxyChains {
    public static final String CANARY_CHAIN = "KUBE-PROXY-CANARY";

    public static final ChainObject CANARY_MANGLE = new ChainObject("proxy-canary/mangle", "mangle", CANARY_CHAIN);
    public static final ChainObject CANARY_NAT = new ChainObject("proxy-canary/nat", "nat", CANARY_CHAIN);
    public static final ChainObject CANARY_FILTER = new ChainObject("proxy-canary/filter", "filter", CANARY_CHAIN);
    public static final ChainObject SERVICES_NAT = new ChainObject("services/nat", "nat", "KUBE-SERVICES");
    public static final ChainObject SERVICES_FILTER = new ChainObject("services/filter", "filter", "KUBE-SERVICES");
    public static final ChainObject EXTERNAL_SERVICES =
            new ChainObject("external-services", "filter", "KUBE-EXTERNAL-SERVICES");
    public static final ChainObject NODEPORTS = new ChainObject("nodeports", "nat", "KUBE-NODEPORTS");
    public static final ChainObject POSTROUTING = new ChainObject("postrouting", "nat", "KUBE-POSTROUTING");
    public static final ChainObject MARK_MASQ = new ChainObject("mark-masq", "nat", "KUBE-MARK-MASQ");
    public static final ChainObject FORWARD = new ChainObject("forward", "filter", "KUBE-FORWARD");
    public static final ChainObject PROXY_FIREWALL = new ChainObject("proxy-firewall", "filter", "KUBE-PROXY-FIREWALL");
    /** kube-proxy keeps its own copy of KUBE-FIREWALL, so after a flush it, not kubelet, brings that back. */
    public static final ChainObject FIREWALL = new ChainObject("proxy/firewall", "filter", KubeletChains.FIREWALL_CHAIN);

    public static final List<ChainObject> CHAINS = List.of(CANARY_MANGLE, CANARY_NAT, CANARY_FILTER, SERVICES_NAT,
            SERVICES_FILTER, EXTERNAL_SERVICES, NODEPORTS, POSTROUTING, MARK_MASQ, FORWARD, PROXY_FIREWALL, FIREWALL);

    private KubeProxyChains() {
    }

    /** The nat rule sending a NodePort to its service: "-A KUBE-NODEPORTS ... --dport <port> -j KUBE-EXT-...". */
    public static boolean hasNodePortRule(Ruleset nat, int nodePort) {
        return nat.rules("nat", "KUBE-NODEPORTS").stream().anyMatch(r -> r.args().contains(String.valueOf(nodePort))
                && r.target().filter(t -> t.startsWith("KUBE-EXT-") || t.startsWith("KUBE-SVC-")).isPresent());
    }

    /** The filter REJECT kube-proxy writes for a service without endpoints ("ns/svc:port has no endpoints"). */
    public static RuleObject noEndpointsReject(String namespace, String service, String portName) {
        String comment = namespace + "/" + service + (portName == null || portName.isEmpty() ? "" : ":" + portName)
                + " has no endpoints";
        return new RuleObject("no-endpoints/" + namespace + "/" + service, "filter", "KUBE-SERVICES", "REJECT",
                Optional.of(comment));
    }
}
