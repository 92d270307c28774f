package dev.chainreaction.probe.cilium;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's configuration as {@code cilium-dbg config -a} prints it ({@code %-34s: %v}, DaemonConfig field names,
 * booleans of the options as Enabled/Disabled): option → value. A map-valued option prints its name alone and its
 * entries tab-indented below; they are kept as "Name.entry". Lookups ignore case, '-' and '_', so the agent flag
 * name ("service-no-backend-response") finds the field ("ServiceNoBackendResponse").
 */
public record CiliumConfig(Map<String, String> options) {
    static final String COMMAND = "cilium-dbg config -a";
    private static final Pattern OPTION = Pattern.compile("^([^\\s:]+)\\s*:(?: (.*))?$");
    private static final Pattern SECTION_NAME = Pattern.compile("^[^\\s:]+$");

    public CiliumConfig {
        options = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }

    public Optional<String> get(String name) {
        String wanted = normalise(name);
        return options.entrySet().stream().filter(e -> normalise(e.getKey()).equals(wanted)).map(Map.Entry::getValue)
                .findFirst();
    }

    /** What a Service without backends answers: "reject" (ICMP unreachable, curl exit 7) or "drop" (curl times out). */
    public Optional<String> serviceNoBackendResponse() {
        return get("ServiceNoBackendResponse").map(v -> v.strip().toLowerCase(Locale.ROOT));
    }

    public static CiliumConfig parse(String text) {
        Map<String, String> options = new LinkedHashMap<>();
        String section = null;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].stripTrailing();
            if (line.isBlank() || line.startsWith("####")) {
                continue;
            }
            boolean indented = Character.isWhitespace(line.charAt(0));
            Matcher m = OPTION.matcher(line.strip());
            if (indented) {
                if (section == null || !m.matches()) {
                    throw CiliumParseException.atLine(COMMAND, i + 1, line,
                            "indented line outside a map-valued option (expected '<Option>' then '\\t<key> : <value>')");
                }
                options.put(section + "." + m.group(1), value(m));
            } else if (m.matches()) {
                section = null;
                options.put(m.group(1), value(m));
            } else if (SECTION_NAME.matcher(line).matches()) {
                section = line;
            } else {
                throw CiliumParseException.atLine(COMMAND, i + 1, line, "expected '<Option> : <value>'");
            }
        }
        if (options.isEmpty()) {
            throw new CiliumParseException(COMMAND + " printed no options; it starts with: " + CiliumStatus.firstLine(text));
        }
        return new CiliumConfig(options);
    }

    private static String value(Matcher m) {
        return m.group(2) == null ? "" : m.group(2).strip();
    }

    private static String normalise(String name) {
        return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }
}
