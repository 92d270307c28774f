package dev.chainreaction.netfilter;

import dev.chainreaction.netfilter.Ruleset.ChainRef;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** What changed between two dumps of one backend: chains and rules added and removed (policies ignored). */
public record RulesetDiff(List<ChainRef> chainsAdded, List<ChainRef> chainsRemoved,
                          List<TableRule> rulesAdded, List<TableRule> rulesRemoved) {

    public static RulesetDiff between(Ruleset before, Ruleset after) {
        Set<ChainRef> b = chains(before);
        Set<ChainRef> a = chains(after);
        Set<TableRule> rb = rules(before);
        Set<TableRule> ra = rules(after);
        return new RulesetDiff(minus(a, b), minus(b, a), minus(ra, rb), minus(rb, ra));
    }

    public boolean isEmpty() {
        return chainsAdded.isEmpty() && chainsRemoved.isEmpty() && rulesAdded.isEmpty() && rulesRemoved.isEmpty();
    }

    /** A unified-diff-like text for reports: "- mangle/KUBE-IPTABLES-HINT", "+ filter: -A INPUT ...". */
    public String render() {
        StringBuilder sb = new StringBuilder();
        chainsRemoved.forEach(c -> sb.append("- chain ").append(c).append('\n'));
        chainsAdded.forEach(c -> sb.append("+ chain ").append(c).append('\n'));
        rulesRemoved.forEach(r -> sb.append("- ").append(r).append('\n'));
        rulesAdded.forEach(r -> sb.append("+ ").append(r).append('\n'));
        return sb.isEmpty() ? "(no change)\n" : sb.toString();
    }

    public record TableRule(String table, String line) {
        @Override
        public String toString() {
            return table + ": " + line;
        }
    }

    private static Set<ChainRef> chains(Ruleset r) {
        Set<ChainRef> s = new LinkedHashSet<>();
        r.tables().forEach((t, table) -> table.chains().keySet().forEach(c -> s.add(new ChainRef(t, c))));
        return s;
    }

    private static Set<TableRule> rules(Ruleset r) {
        Set<TableRule> s = new LinkedHashSet<>();
        r.tables().forEach((t, table) -> table.chains().values()
                .forEach(c -> c.rules().forEach(rule -> s.add(new TableRule(t, rule.line())))));
        return s;
    }

    private static <T> List<T> minus(Set<T> x, Set<T> y) {
        List<T> out = new ArrayList<>(x);
        out.removeAll(y);
        return out;
    }
}
