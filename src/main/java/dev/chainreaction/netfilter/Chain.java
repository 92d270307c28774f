package dev.chainreaction.netfilter;

import java.util.List;
import java.util.Optional;

/**
 * A chain of one table: built-in chains have a policy and counters, user chains have neither (iptables-save
 * prints "-" and their own counters, which we keep only for built-ins).
 */
public record Chain(String name, Optional<String> policy, Optional<Counters> counters, List<Rule> rules) {

    public Chain {
        rules = List.copyOf(rules);
    }

    public boolean builtIn() {
        return policy.isPresent();
    }

    public record Counters(long packets, long bytes) {
    }
}
