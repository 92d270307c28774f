package dev.chainreaction.probe.cilium;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What {@code cilium-dbg status [--verbose]} says about the Service datapath: the kube-proxy replacement mode and
 * its devices, socket-level load balancing and NodePort. The other lines are kept as text, never judged. Socket LB
 * and NodePort come from the "KubeProxyReplacement Details" block, which only {@code --verbose} prints.
 */
public record CiliumStatus(KubeProxyReplacement kubeProxyReplacement, List<Device> devices, Optional<Boolean> socketLb,
                           Optional<SocketLbCoverage> socketLbCoverage, Optional<NodePort> nodePort,
                           Map<String, String> summary, Map<String, String> details) {
    static final String COMMAND = "cilium-dbg status";
    private static final Pattern KEY_VALUE = Pattern.compile("^([^:]+):(.*)$");
    private static final Pattern KPR_VALUE = Pattern.compile("^(\\S+)\\s*(?:\\[(.*)])?\\s*$");
    private static final Pattern NODE_PORT = Pattern.compile("^(?:Enabled(?: \\(Range: (\\d+)-(\\d+)\\))?|Disabled)$");
    private static final String DETAILS = "KubeProxyReplacement Details";
    private static final String DIRECT_ROUTING = "(Direct Routing)";

    public CiliumStatus {
        devices = List.copyOf(devices);
        summary = Map.copyOf(summary);
        details = Map.copyOf(details);
    }

    /** The mode as models.KubeProxyReplacement spells it: True/False since 1.15, Strict/Partial/Probe/Disabled before. */
    public enum KubeProxyReplacement {
        TRUE("True"), FALSE("False"), STRICT("Strict"), PARTIAL("Partial"), PROBE("Probe"), DISABLED("Disabled");

        private final String printed;

        KubeProxyReplacement(String printed) {
            this.printed = printed;
        }

        public String printed() {
            return printed;
        }

        /** Cilium serves every Service itself and kube-proxy can be gone: True, or Strict before 1.15. */
        public boolean full() {
            return this == TRUE || this == STRICT;
        }

        static Optional<KubeProxyReplacement> fromPrinted(String s) {
            return Arrays.stream(values()).filter(v -> v.printed.equals(s)).findFirst();
        }
    }

    /** "Full": connect() is translated in every pod; "Hostns-only": only in the host network namespace. */
    public enum SocketLbCoverage {
        FULL("Full"), HOSTNS_ONLY("Hostns-only");

        private final String printed;

        SocketLbCoverage(String printed) {
            this.printed = printed;
        }

        static Optional<SocketLbCoverage> fromPrinted(String s) {
            return Arrays.stream(values()).filter(v -> v.printed.equals(s)).findFirst();
        }
    }

    /** A device the BPF datapath is attached to, with its addresses; Direct Routing marks the one NodePorts use. */
    public record Device(String name, List<String> addresses, boolean directRouting) {
        public Device {
            addresses = List.copyOf(addresses);
        }
    }

    /** "- NodePort: Enabled (Range: 30000-32767)" or "Disabled". */
    public record NodePort(boolean enabled, Optional<PortRange> range) {
    }

    public record PortRange(int min, int max) {
    }

    /** The "Cilium:" line's state, "Ok" on a healthy agent. */
    public Optional<String> ciliumState() {
        return summary("Cilium").map(v -> v.split("\\s+")[0]);
    }

    /** A top-level line's value ("Kubernetes", "Host Routing", "Masquerading", ...), spaces between cells kept. */
    public Optional<String> summary(String key) {
        return Optional.ofNullable(summary.get(key));
    }

    /** A details line: "Mode", "Backend Selection", or "Services/HostPort" for a list item under "Services:". */
    public Optional<String> detail(String key) {
        return Optional.ofNullable(details.get(key));
    }

    public static CiliumStatus parse(String text) {
        Map<String, String> summary = new LinkedHashMap<>();
        Map<String, String> details = new LinkedHashMap<>();
        KubeProxyReplacement mode = null;
        List<Device> summaryDevices = List.of();
        List<Device> detailDevices = null;
        Boolean socketLb = null;
        SocketLbCoverage coverage = null;
        NodePort nodePort = null;
        boolean inDetails = false;
        String list = null;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i].stripTrailing();
            if (line.isBlank()) {
                continue;
            }
            boolean indented = Character.isWhitespace(line.charAt(0));
            if (!indented) {
                inDetails = false;
                list = null;
                Matcher m = KEY_VALUE.matcher(line);
                if (!m.matches()) {
                    continue; // the health table's header and other cells carry no key; nothing of ours is there
                }
                String key = m.group(1).strip();
                String value = m.group(2).strip();
                summary.putIfAbsent(key, value);
                if (key.equals(DETAILS)) {
                    inDetails = true;
                } else if (key.equals("KubeProxyReplacement")) {
                    Matcher v = KPR_VALUE.matcher(value);
                    if (!v.matches()) {
                        throw CiliumParseException.atLine(COMMAND, lineNo, line,
                                "expected 'KubeProxyReplacement: <mode> [<devices>]'");
                    }
                    mode = mode(v.group(1), lineNo, line);
                    summaryDevices = v.group(2) == null ? List.of() : devices(v.group(2), lineNo, line);
                }
                continue;
            }
            if (!inDetails) {
                continue;
            }
            String item = line.strip();
            boolean listItem = item.startsWith("- ");
            if (listItem) {
                item = item.substring(2);
            }
            int colon = item.indexOf(':');
            String key = colon < 0 ? item : item.substring(0, colon).strip();
            String value = colon < 0 ? "" : item.substring(colon + 1).strip();
            if (listItem && list != null) {
                key = list + "/" + key;
            } else if (colon >= 0 && value.isEmpty()) {
                list = key; // "Services:", "NAT46/64 Support:", "Annotations:" head a list of "- " items
            } else {
                list = null;
            }
            details.putIfAbsent(key, value);
            switch (key) {
                case "Status" -> mode = mode == null ? mode(value, lineNo, line) : mode;
                case "Socket LB" -> socketLb = enabled(value, lineNo, line);
                case "Socket LB Coverage" -> coverage = SocketLbCoverage.fromPrinted(value).orElseThrow(() ->
                        CiliumParseException.atLine(COMMAND, lineNo, line,
                                "unknown Socket LB Coverage '" + value + "' (expected Full or Hostns-only)"));
                case "Devices" -> detailDevices = devices(value, lineNo, line);
                case "Services/NodePort" -> nodePort = nodePort(value, lineNo, line);
                default -> {
                }
            }
        }
        if (mode == null) {
            throw new CiliumParseException(COMMAND + " output has no 'KubeProxyReplacement:' line; is this the output of "
                    + COMMAND + "? It starts with: " + firstLine(text));
        }
        return new CiliumStatus(mode, detailDevices != null ? detailDevices : summaryDevices, Optional.ofNullable(socketLb),
                Optional.ofNullable(coverage), Optional.ofNullable(nodePort), summary, details);
    }

    private static KubeProxyReplacement mode(String value, int lineNo, String line) {
        return KubeProxyReplacement.fromPrinted(value).orElseThrow(() -> CiliumParseException.atLine(COMMAND, lineNo, line,
                "unknown KubeProxyReplacement mode '" + value + "' (expected one of " + Arrays.stream(KubeProxyReplacement.values())
                        .map(KubeProxyReplacement::printed).collect(Collectors.joining(", ")) + ")"));
    }

    private static boolean enabled(String value, int lineNo, String line) {
        return switch (value) {
            case "Enabled" -> true;
            case "Disabled" -> false;
            default -> throw CiliumParseException.atLine(COMMAND, lineNo, line, "expected Enabled or Disabled, got '" + value + "'");
        };
    }

    private static NodePort nodePort(String value, int lineNo, String line) {
        Matcher m = NODE_PORT.matcher(value);
        if (!m.matches()) {
            throw CiliumParseException.atLine(COMMAND, lineNo, line,
                    "expected 'Enabled (Range: <min>-<max>)' or 'Disabled' for NodePort");
        }
        Optional<PortRange> range = m.group(1) == null ? Optional.empty()
                : Optional.of(new PortRange(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
        return new NodePort(value.startsWith("Enabled"), range);
    }

    /** "eth0 172.18.0.2 (Direct Routing), eth1 10.0.0.5": the last ", " may dangle (the loop compares the wrong list). */
    private static List<Device> devices(String value, int lineNo, String line) {
        List<Device> devices = new ArrayList<>();
        for (String part : value.split(",")) {
            String d = part.strip();
            if (d.isEmpty()) {
                continue;
            }
            boolean direct = d.endsWith(DIRECT_ROUTING);
            if (direct) {
                d = d.substring(0, d.length() - DIRECT_ROUTING.length()).strip();
            }
            String[] words = d.split("\\s+");
            if (words[0].isEmpty() || words[0].contains("(")) {
                throw CiliumParseException.atLine(COMMAND, lineNo, line, "expected '<device> <address>... [(Direct Routing)]'");
            }
            devices.add(new Device(words[0], List.of(words).subList(1, words.length), direct));
        }
        return devices;
    }

    static String firstLine(String text) {
        String first = text.strip().lines().findFirst().orElse("");
        return first.isEmpty() ? "(nothing)" : first;
    }
}
