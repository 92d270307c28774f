package dev.chainreaction.probe.cilium;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cilium's connection tracking table as {@code cilium-dbg bpf ct list global} prints it, one entry a line:
 * {@code TCP OUT 10.42.0.30:40404 -> 10.42.0.15:8080 expires=21813 ... RevNAT=0 SourceSecurityID=38423 BackendID=0}.
 * Fields are kept by name, so fields of other versions (RxPackets, IfIndex, NatPort, ...) are carried, not refused.
 * Service entries are read in the layout 1.15 introduced (PR #28913, "TCP SVC client -> frontend"); the older
 * "TCP OUT frontend -> client service" is turned round to match, its "service" word kept in {@link Entry#words()}.
 */
public record BpfCtList(List<Entry> entries) {
    static final String COMMAND = "cilium-dbg bpf ct list global";
    private static final Pattern ENTRY = Pattern.compile("^(\\S+) (IN|OUT|SVC) (\\S+) -> (\\S+)(?: (.*))?$");
    private static final Set<String> NUMERIC = Set.of("expires", "RevNAT", "SourceSecurityID", "BackendID");

    public BpfCtList {
        entries = List.copyOf(entries);
    }

    public enum Direction { IN, OUT, SVC }

    /**
     * One entry. {@code words}: bare words after the tuple ("related"; "service" before 1.15). {@code ctFlags}: the
     * names in the Flags=0x.. [ ... ] group. {@code fields}: every key=value, as printed.
     */
    public record Entry(int line, String protocol, Direction direction, String source, int sourcePort, String destination,
                        int destinationPort, List<String> words, List<String> ctFlags, Map<String, String> fields) {
        public Entry {
            words = List.copyOf(words);
            ctFlags = List.copyOf(ctFlags);
            fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        }

        public Optional<String> field(String name) {
            return Optional.ofNullable(fields.get(name));
        }

        public long expires() {
            return Long.parseLong(fields.get("expires"));
        }

        public OptionalInt revNat() {
            return field("RevNAT").map(v -> OptionalInt.of(Integer.parseInt(v))).orElse(OptionalInt.empty());
        }

        public OptionalLong sourceSecurityId() {
            return unsigned("SourceSecurityID");
        }

        /** The backend a service entry chose (since 1.16); 0 on other entries. */
        public OptionalLong backendId() {
            return unsigned("BackendID");
        }

        public String sourceAddress() {
            return Addresses.hostPort(source, sourcePort);
        }

        public String destinationAddress() {
            return Addresses.hostPort(destination, destinationPort);
        }

        private OptionalLong unsigned(String name) {
            return field(name).map(v -> OptionalLong.of(Long.parseUnsignedLong(v))).orElse(OptionalLong.empty());
        }
    }

    /** Entries of any direction whose source port is {@code port} (the lab's client holds 40404). */
    public List<Entry> fromSourcePort(int port) {
        return entries.stream().filter(e -> e.sourcePort() == port).toList();
    }

    /** Entries whose destination is ip:port ("10.42.0.15:8080"; IPv6 in brackets). */
    public List<Entry> to(String address) {
        return entries.stream().filter(e -> e.destinationAddress().equals(address)).toList();
    }

    public List<Entry> inDirection(Direction d) {
        return entries.stream().filter(e -> e.direction() == d).toList();
    }

    public static BpfCtList parse(String text) {
        List<Entry> entries = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (!line.isEmpty()) {
                entries.add(entry(i + 1, line));
            }
        }
        return new BpfCtList(entries);
    }

    private static Entry entry(int lineNo, String line) {
        Matcher m = ENTRY.matcher(line);
        if (!m.matches()) {
            throw CiliumParseException.atLine(COMMAND, lineNo, line,
                    "expected '<PROTO> <IN|OUT|SVC> <src>:<port> -> <dst>:<port> <field>=<value> ...'");
        }
        String[] src = Addresses.split(m.group(3));
        String[] dst = Addresses.split(m.group(4));
        if (src == null || dst == null) {
            throw CiliumParseException.atLine(COMMAND, lineNo, line, "not an address:port: " + (src == null ? m.group(3) : m.group(4)));
        }
        List<String> words = new ArrayList<>();
        List<String> ctFlags = new ArrayList<>();
        Map<String, String> fields = new LinkedHashMap<>();
        String[] tokens = m.group(5) == null ? new String[0] : m.group(5).strip().split("\\s+");
        String last = null;
        for (int t = 0; t < tokens.length; t++) {
            String token = tokens[t];
            if (token.startsWith("[") || token.startsWith("(")) {
                String close = token.startsWith("[") ? "]" : ")";
                List<String> group = new ArrayList<>();
                String inner = token.substring(1);
                while (!inner.endsWith(close) && t + 1 < tokens.length) {
                    if (!inner.isEmpty()) {
                        group.add(inner);
                    }
                    inner = tokens[++t];
                }
                if (!inner.endsWith(close)) {
                    throw CiliumParseException.atLine(COMMAND, lineNo, line, "unclosed '" + token.charAt(0) + "'");
                }
                inner = inner.substring(0, inner.length() - 1);
                if (!inner.isEmpty()) {
                    group.add(inner);
                }
                if ("Flags".equals(last) && close.equals("]")) {
                    ctFlags.addAll(group);
                } else if (last != null) {
                    fields.put(last + ".note", String.join(" ", group)); // e.g. the remaining time --time-diff adds to expires
                } else {
                    words.add(token.charAt(0) + String.join(" ", group) + close);
                }
                continue;
            }
            int eq = token.indexOf('=');
            if (eq > 0) {
                last = token.substring(0, eq);
                String value = token.substring(eq + 1);
                if (NUMERIC.contains(last) && !value.matches("\\d+")) {
                    throw CiliumParseException.atLine(COMMAND, lineNo, line, last + " is not a number: '" + value + "'");
                }
                fields.put(last, value);
            } else {
                words.add(token);
            }
        }
        if (!fields.containsKey("expires")) {
            throw CiliumParseException.atLine(COMMAND, lineNo, line, "no expires= field");
        }
        Direction direction = Direction.valueOf(m.group(2));
        if (direction == Direction.OUT && words.contains("service")) {
            // before 1.15 a service entry was printed as OUT, frontend first: turn it into the SVC layout
            return new Entry(lineNo, m.group(1), Direction.SVC, dst[0], Integer.parseInt(dst[1]), src[0], Integer.parseInt(src[1]),
                    words, ctFlags, fields);
        }
        return new Entry(lineNo, m.group(1), direction, src[0], Integer.parseInt(src[1]), dst[0], Integer.parseInt(dst[1]),
                words, ctFlags, fields);
    }
}
