package dev.chainreaction.netfilter;

/** iptables-save output that is not what iptables-save prints; the message names the line. */
public class RulesetParseException extends RuntimeException {
    public RulesetParseException(String message) {
        super(message);
    }
}
