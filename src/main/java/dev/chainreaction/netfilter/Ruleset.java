package dev.chainreaction.netfilter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** A whole iptables-save dump of one backend, as data. Parse with {@link IptablesSave#parse(String)}. */
public record Ruleset(Map<String, Table> tables) {

    public Ruleset {
        tables = Collections.unmodifiableMap(new LinkedHashMap<>(tables));
    }

    public static Ruleset empty() {
        return new Ruleset(Map.of());
    }

    public Optional<Table> table(String table) {
        return Optional.ofNullable(tables.get(table));
    }

    public boolean hasChain(String table, String chain) {
        return table(table).flatMap(t -> t.chain(chain)).isPresent();
    }

    public List<Rule> rules(String table, String chain) {
        return table(table).flatMap(t -> t.chain(chain)).map(Chain::rules).orElse(List.of());
    }

    /** Every rule of every chain of the table. */
    public Stream<Rule> rules(String table) {
        return table(table).stream().flatMap(t -> t.chains().values().stream()).flatMap(c -> c.rules().stream());
    }

    /** Chains that are not built in, per table: what a flush with -X deletes. */
    public List<ChainRef> userChains() {
        List<ChainRef> refs = new ArrayList<>();
        tables.forEach((name, t) -> t.chains().values().stream().filter(c -> !c.builtIn())
                .forEach(c -> refs.add(new ChainRef(name, c.name()))));
        return refs;
    }

    public int ruleCount() {
        return tables.values().stream().flatMap(t -> t.chains().values().stream()).mapToInt(c -> c.rules().size()).sum();
    }

    /** Prints the ruleset back in iptables-save syntax (without counters), which iptables-restore accepts. */
    public String toSaveFormat() {
        StringBuilder sb = new StringBuilder();
        tables.forEach((name, t) -> {
            sb.append('*').append(name).append('\n');
            t.chains().values().forEach(c -> sb.append(':').append(c.name()).append(' ')
                    .append(c.policy().orElse("-")).append(" [0:0]\n"));
            t.chains().values().forEach(c -> c.rules().forEach(r -> sb.append(r.line()).append('\n')));
            sb.append("COMMIT\n");
        });
        return sb.toString();
    }

    /** A chain named by its table, as reports print it: "mangle/KUBE-IPTABLES-HINT". */
    public record ChainRef(String table, String chain) {
        @Override
        public String toString() {
            return table + "/" + chain;
        }
    }
}
