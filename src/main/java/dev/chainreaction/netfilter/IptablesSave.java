package dev.chainreaction.netfilter;

import dev.chainreaction.netfilter.Chain.Counters;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses iptables-save output (either backend, with or without counters) into a {@link Ruleset}. */
public final class IptablesSave {
    private static final Pattern CHAIN = Pattern.compile("^:(\\S+) (\\S+)(?: \\[(\\d+):(\\d+)])?$");
    private static final Pattern COUNTED_RULE = Pattern.compile("^\\[\\d+:\\d+] (-A .*)$");

    private IptablesSave() {
    }

    public static Ruleset parse(String text) {
        Map<String, Table> tables = new LinkedHashMap<>();
        String table = null;
        Map<String, ChainBuilder> chains = null;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher counted = COUNTED_RULE.matcher(line);
            if (counted.matches()) {
                line = counted.group(1);
            }
            if (line.startsWith("*")) {
                if (table != null) {
                    throw error(lineNo, line, "table '" + line.substring(1) + "' starts before table '" + table
                            + "' was COMMITted");
                }
                table = line.substring(1);
                if (table.isEmpty()) {
                    throw error(lineNo, line, "table name missing after '*'");
                }
                chains = new LinkedHashMap<>();
            } else if (line.equals("COMMIT")) {
                if (table == null) {
                    throw error(lineNo, line, "COMMIT outside a table");
                }
                Map<String, Chain> built = new LinkedHashMap<>();
                chains.forEach((name, b) -> built.put(name, b.build()));
                tables.put(table, new Table(table, built));
                table = null;
            } else if (line.startsWith(":")) {
                if (table == null) {
                    throw error(lineNo, line, "chain declared outside a table (no '*table' line before it)");
                }
                Matcher m = CHAIN.matcher(line);
                if (!m.matches()) {
                    throw error(lineNo, line, "expected ':CHAIN POLICY [packets:bytes]'");
                }
                String policy = m.group(2);
                Optional<Counters> counters = m.group(3) == null || policy.equals("-") ? Optional.empty()
                        : Optional.of(new Counters(Long.parseLong(m.group(3)), Long.parseLong(m.group(4))));
                chains.put(m.group(1), new ChainBuilder(m.group(1),
                        policy.equals("-") ? Optional.empty() : Optional.of(policy), counters));
            } else if (line.startsWith("-A ")) {
                if (table == null) {
                    throw error(lineNo, line, "rule outside a table (no '*table' line before it)");
                }
                List<String> tokens;
                try {
                    tokens = tokenize(line);
                } catch (IllegalArgumentException e) {
                    throw error(lineNo, line, e.getMessage());
                }
                if (tokens.size() < 2) {
                    throw error(lineNo, line, "rule without a chain name after -A");
                }
                ChainBuilder chain = chains.get(tokens.get(1));
                if (chain == null) {
                    throw error(lineNo, line, "rule for chain '" + tokens.get(1) + "' which table '" + table
                            + "' does not declare");
                }
                chain.rules.add(new Rule(tokens.get(1), tokens.subList(2, tokens.size())));
            } else {
                throw error(lineNo, line, "not an iptables-save line (expected *table, :chain, -A rule, COMMIT or #)");
            }
        }
        if (table != null) {
            throw new RulesetParseException("iptables-save output ends inside table '" + table + "' (no COMMIT)");
        }
        return new Ruleset(tables);
    }

    /** Splits a rule line the way iptables-save quotes it: double quotes, with \" and \\ escaped inside. */
    static List<String> tokenize(String line) {
        List<String> tokens = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inQuotes = false;
        boolean inToken = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (inQuotes) {
                if (c == '\\' && i + 1 < line.length()) {
                    current.append(line.charAt(++i));
                } else if (c == '"') {
                    inQuotes = false;
                } else {
                    current.append(c);
                }
            } else if (c == '"') {
                inQuotes = true;
                inToken = true;
            } else if (c == ' ' || c == '\t') {
                if (inToken) {
                    tokens.add(current.toString());
                    current.setLength(0);
                    inToken = false;
                }
            } else {
                current.append(c);
                inToken = true;
            }
        }
        if (inQuotes) {
            throw new IllegalArgumentException("unterminated double quote");
        }
        if (inToken) {
            tokens.add(current.toString());
        }
        return tokens;
    }

    private static RulesetParseException error(int lineNo, String line, String why) {
        return new RulesetParseException("iptables-save line " + lineNo + ": " + why + ": " + line);
    }

    private static final class ChainBuilder {
        final String name;
        final Optional<String> policy;
        final Optional<Counters> counters;
        final List<Rule> rules = new ArrayList<>();

        ChainBuilder(String name, Optional<String> policy, Optional<Counters> counters) {
            this.name = name;
            this.policy = policy;
            this.counters = counters;
        }

        Chain build() {
            return new Chain(name, policy, counters, rules);
        }
    }
}
