package dev.chainreaction.scenario;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.chainreaction.netfilter.KubeProxyChains;
import dev.chainreaction.netfilter.KubeletChains;
import dev.chainreaction.netfilter.NetfilterObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads scenario files strictly: unknown fields, duplicate keys, wrong enum values and bad durations are errors
 * whose message names the file, the field and what is allowed.
 */
public final class ScenarioLoader {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");
    private static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .registerModule(new SimpleModule().addDeserializer(Duration.class, new DurationDeserializer()));

    /** Chain ids a scenario may name under expect.chains. */
    public static final Set<String> CHAIN_IDS = Stream.concat(KubeletChains.ALL.stream(), KubeProxyChains.CHAINS.stream())
            .map(NetfilterObject::id).collect(Collectors.toCollection(TreeSet::new));

    private ScenarioLoader() {
    }

    public static Scenario load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ScenarioException(file + ": cannot read: " + e.getMessage());
        }
        return parse(file.toString(), text);
    }

    /** All scenario files of a directory, by name; every bad file is reported, not just the first. */
    public static List<Scenario> loadAll(Path dir) {
        List<Scenario> scenarios = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                try {
                    Scenario s = load(f);
                    String expected = f.getFileName().toString().replaceFirst("\\.yaml$", "");
                    if (!s.name().equals(expected)) {
                        throw new ScenarioException(f + ": field 'name': must match the file name '" + expected + "', got: '" + s.name() + "'");
                    }
                    scenarios.add(s);
                } catch (ScenarioException e) {
                    errors.add(e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new ScenarioException(dir + ": cannot list scenario files: " + e.getMessage());
        }
        if (!errors.isEmpty()) {
            throw new ScenarioException(String.join("\n", errors));
        }
        return scenarios;
    }

    public static Scenario parse(String source, String yaml) {
        Scenario s;
        try {
            s = MAPPER.readValue(yaml, Scenario.class);
        } catch (JsonProcessingException e) {
            throw new ScenarioException(source + ": " + describe(e));
        }
        if (s == null) {
            throw new ScenarioException(source + ": the file is empty");
        }
        for (String id : s.expect().chains().keySet()) {
            if (!CHAIN_IDS.contains(id)) {
                throw new ScenarioException(source + ": field 'expect.chains." + id + "': unknown chain id; allowed: "
                        + String.join(", ", CHAIN_IDS));
            }
        }
        return s;
    }

    private static String describe(JsonProcessingException e) {
        String field = e instanceof JsonMappingException m ? path(m) : "";
        String where = field.isEmpty() ? "" : "field '" + field + "': ";
        if (e instanceof UnrecognizedPropertyException u) {
            return "field '" + (field.isEmpty() ? u.getPropertyName() : field) + "': unknown field; allowed here: "
                    + u.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
        }
        if (e instanceof InvalidFormatException f && f.getTargetType() != null && f.getTargetType().isEnum()) {
            @SuppressWarnings("unchecked")
            Class<? extends Enum<?>> type = (Class<? extends Enum<?>>) f.getTargetType();
            return where + "'" + f.getValue() + "' is not allowed; allowed: " + Enums.allowed(type);
        }
        if (e instanceof ValueInstantiationException v && v.getCause() != null) {
            return where.isEmpty() ? v.getCause().getMessage() : where + v.getCause().getMessage();
        }
        if (e instanceof MismatchedInputException mi && mi.getMessage().contains("Missing required creator property")) {
            Matcher m = Pattern.compile("property '([^']+)'").matcher(mi.getMessage());
            String missing = m.find() ? m.group(1) : "?";
            String full = field.isEmpty() ? missing : field.endsWith(missing) ? field : field + "." + missing;
            return "field '" + full + "': required but missing";
        }
        if (e instanceof JsonMappingException m && m.getCause() instanceof IllegalArgumentException iae) {
            return where + iae.getMessage();
        }
        String msg = e.getOriginalMessage();
        return where + msg + (e.getLocation() != null ? " (line " + e.getLocation().getLineNr() + ")" : "");
    }

    private static String path(JsonMappingException m) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : m.getPath()) {
            if (r.getFieldName() != null) {
                sb.append(sb.isEmpty() ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    /** "90s", "200ms", "1m", "0" as durations; anything else is an error naming the accepted forms. */
    static final class DurationDeserializer extends JsonDeserializer<Duration> {
        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            String text = p.getValueAsString();
            if ("0".equals(text)) {
                return Duration.ZERO;
            }
            Matcher m = text == null ? null : DURATION.matcher(text.strip());
            if (m == null || !m.matches()) {
                throw new IllegalArgumentException("'" + text + "' is not a duration; write e.g. 200ms, 90s, 2m");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
    }
}
