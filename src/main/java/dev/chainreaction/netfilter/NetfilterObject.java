package dev.chainreaction.netfilter;

import java.util.Optional;

/**
 * Something a component owns in netfilter: a chain, or a rule in a chain, recognised in a {@link Ruleset}.
 * Each has a short stable id for scenario files and report lanes ("hint", "canary/nat", "firewall-jump/OUTPUT").
 */
public sealed interface NetfilterObject {

    String id();

    String table();

    String chain();

    boolean presentIn(Ruleset ruleset);

    /** A chain, present when the table declares it. */
    record ChainObject(String id, String table, String chain) implements NetfilterObject {
        @Override
        public boolean presentIn(Ruleset ruleset) {
            return ruleset.hasChain(table, chain);
        }

        @Override
        public String toString() {
            return "chain " + table + "/" + chain;
        }
    }

    /**
     * A rule, present when {@code chain} holds a rule jumping to {@code target} whose comment (if one is given)
     * matches. Target and comment identify kubelet's and kube-proxy's rules whatever order iptables-save prints
     * the matches in.
     */
    record RuleObject(String id, String table, String chain, String target, Optional<String> comment)
            implements NetfilterObject {
        @Override
        public boolean presentIn(Ruleset ruleset) {
            return ruleset.rules(table, chain).stream().anyMatch(r -> r.target().filter(target::equals).isPresent()
                    && (comment.isEmpty() || r.comment().equals(comment)));
        }

        @Override
        public String toString() {
            return "rule " + table + "/" + chain + " -j " + target + comment.map(c -> " \"" + c + "\"").orElse("");
        }
    }
}
