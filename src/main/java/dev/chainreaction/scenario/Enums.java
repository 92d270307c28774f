package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Scenario files spell enum constants as their @JsonProperty names; so do reports and error messages. */
final class Enums {
    private Enums() {
    }

    static String label(Enum<?> e) {
        try {
            JsonProperty p = e.getDeclaringClass().getField(e.name()).getAnnotation(JsonProperty.class);
            return p != null ? p.value() : e.name().toLowerCase(java.util.Locale.ROOT);
        } catch (NoSuchFieldException ex) {
            throw new IllegalStateException(ex);
        }
    }

    static String allowed(Class<? extends Enum<?>> type) {
        return Arrays.stream(type.getEnumConstants()).map(Enums::label).collect(Collectors.joining(", "));
    }
}
