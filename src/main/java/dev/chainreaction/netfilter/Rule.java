package dev.chainreaction.netfilter;

import java.util.List;
import java.util.Optional;

/**
 * One rule as iptables-save prints it: the chain it is appended to and its arguments, already in iptables'
 * normalised form (e.g. "-d 10.96.0.1/32 -p tcp -m tcp --dport 443 ... -j REJECT").
 */
public record Rule(String chain, List<String> args) {

    public Rule {
        args = List.copyOf(args);
    }

    /** The target after -j (or the chain after -g), if any. */
    public Optional<String> target() {
        for (int i = 0; i < args.size() - 1; i++) {
            if (args.get(i).equals("-j") || args.get(i).equals("-g")) {
                return Optional.of(args.get(i + 1));
            }
        }
        return Optional.empty();
    }

    /** The text of --comment, if the rule has one. */
    public Optional<String> comment() {
        int i = args.indexOf("--comment");
        return i >= 0 && i + 1 < args.size() ? Optional.of(args.get(i + 1)) : Optional.empty();
    }

    /** The rule as an iptables-save line. */
    public String line() {
        StringBuilder sb = new StringBuilder("-A ").append(chain);
        for (String a : args) {
            sb.append(' ').append(a.isEmpty() || a.contains(" ") || a.contains("\"") ? '"' + a.replace("\"", "\\\"") + '"' : a);
        }
        return sb.toString();
    }
}
