package dev.chainreaction.netfilter;

import dev.chainreaction.netfilter.NetfilterObject.ChainObject;
import dev.chainreaction.netfilter.NetfilterObject.RuleObject;
import java.util.List;
import java.util.Optional;

/**
 * What kubelet's one-shot iptables initialisation creates (syncIPTablesRules, kubelet_network_linux.go,
 * v1.28-v1.34), in the order it creates it, and the canary its Monitor then adds (pkg/util/iptables).
 */
public final class KubeletChains {
    public static final String HINT_CHAIN = "KUBE-IPTABLES-HINT";
    public static final String FIREWALL_CHAIN = "KUBE-FIREWALL";
    public static final String CANARY_CHAIN = "KUBE-KUBELET-CANARY";
    public static final String LOCALNET_COMMENT = "block incoming localnet connections";

    public static final ChainObject HINT = new ChainObject("hint", "mangle", HINT_CHAIN);
    public static final ChainObject FIREWALL = new ChainObject("firewall", "filter", FIREWALL_CHAIN);
    public static final RuleObject OUTPUT_JUMP =
            new RuleObject("firewall-jump/OUTPUT", "filter", "OUTPUT", FIREWALL_CHAIN, Optional.empty());
    public static final RuleObject INPUT_JUMP =
            new RuleObject("firewall-jump/INPUT", "filter", "INPUT", FIREWALL_CHAIN, Optional.empty());
    public static final RuleObject LOCALNET_DROP =
            new RuleObject("localnet-drop", "filter", FIREWALL_CHAIN, "DROP", Optional.of(LOCALNET_COMMENT));
    public static final ChainObject CANARY_MANGLE = new ChainObject("canary/mangle", "mangle", CANARY_CHAIN);
    public static final ChainObject CANARY_NAT = new ChainObject("canary/nat", "nat", CANARY_CHAIN);
    public static final ChainObject CANARY_FILTER = new ChainObject("canary/filter", "filter", CANARY_CHAIN);

    /** syncIPTablesRules for IPv4, in order; it stops at the first error. */
    public static final List<NetfilterObject> INIT_IPV4 = List.of(HINT, FIREWALL, OUTPUT_JUMP, INPUT_JUMP, LOCALNET_DROP);

    /** The Monitor's canary, one per table; mangle is the one it polls. */
    public static final List<ChainObject> CANARIES = List.of(CANARY_MANGLE, CANARY_NAT, CANARY_FILTER);

    /** Everything kubelet owns on a healthy IPv4 node. */
    public static final List<NetfilterObject> ALL = concat(INIT_IPV4, CANARIES);

    private KubeletChains() {
    }

    /**
     * The commands kubelet's pkg/util/iptables runs for {@link #INIT_IPV4}, as argv after "iptables" (without
     * the -w wait flags). A fault armed at a step fires before that step's command runs.
     */
    public static List<List<String>> initCommandsIpv4() {
        return List.of(
                List.of("-N", HINT_CHAIN, "-t", "mangle"),
                List.of("-N", FIREWALL_CHAIN, "-t", "filter"),
                List.of("-C", "OUTPUT", "-t", "filter", "-j", FIREWALL_CHAIN),
                List.of("-I", "OUTPUT", "-t", "filter", "-j", FIREWALL_CHAIN),
                List.of("-C", "INPUT", "-t", "filter", "-j", FIREWALL_CHAIN),
                List.of("-I", "INPUT", "-t", "filter", "-j", FIREWALL_CHAIN),
                List.of("-C", FIREWALL_CHAIN, "-t", "filter", "-m", "comment", "--comment", LOCALNET_COMMENT,
                        "--dst", "127.0.0.0/8", "!", "--src", "127.0.0.0/8", "-m", "conntrack", "!", "--ctstate",
                        "RELATED,ESTABLISHED,DNAT", "-j", "DROP"),
                List.of("-A", FIREWALL_CHAIN, "-t", "filter", "-m", "comment", "--comment", LOCALNET_COMMENT,
                        "--dst", "127.0.0.0/8", "!", "--src", "127.0.0.0/8", "-m", "conntrack", "!", "--ctstate",
                        "RELATED,ESTABLISHED,DNAT", "-j", "DROP"));
    }

    static List<NetfilterObject> concat(List<? extends NetfilterObject> a, List<? extends NetfilterObject> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).map(NetfilterObject.class::cast).toList();
    }
}
