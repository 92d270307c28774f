package dev.chainreaction.netfilter;

import java.util.Locale;

/** The two iptables backends a node can hold tables in at the same time. */
public enum Backend {
    NFT("iptables-nft", "ip6tables-nft"),
    LEGACY("iptables-legacy", "ip6tables-legacy");

    private final String iptables;
    private final String ip6tables;

    Backend(String iptables, String ip6tables) {
        this.iptables = iptables;
        this.ip6tables = ip6tables;
    }

    public String iptables() {
        return iptables;
    }

    public String ip6tables() {
        return ip6tables;
    }

    public String save() {
        return iptables + "-save";
    }

    public String restore() {
        return iptables + "-restore";
    }

    public String ip6save() {
        return ip6tables + "-save";
    }

    public String ip6restore() {
        return ip6tables + "-restore";
    }

    /** "nft" or "legacy", as scenario files and reports spell it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Backend fromLabel(String label) {
        for (Backend b : values()) {
            if (b.label().equals(label)) {
                return b;
            }
        }
        throw new IllegalArgumentException("unknown iptables backend '" + label + "', allowed: nft, legacy");
    }
}
