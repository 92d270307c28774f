package dev.chainreaction.netfilter;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** One table (filter, nat, mangle, raw, security) and its chains in iptables-save order. */
public record Table(String name, Map<String, Chain> chains) {

    public Table {
        chains = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(chains));
    }

    public Optional<Chain> chain(String chain) {
        return Optional.ofNullable(chains.get(chain));
    }
}
