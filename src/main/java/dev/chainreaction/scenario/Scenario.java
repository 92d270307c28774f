package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * A scenario file (scenarios/*.yaml) as a typed model: where it runs, which fault, when it fires, what to observe
 * and expect. Loaded strictly by {@link ScenarioLoader}; validation messages name the field and what is allowed.
 */
public record Scenario(
        @JsonProperty(required = true) String name,
        String description,
        List<String> tags,
        @JsonProperty(required = true) List<Cell> cells,
        Integer repetitions,
        @JsonProperty(required = true) Fault fault,
        @JsonProperty(required = true) Trigger trigger,
        Observe observe,
        @JsonProperty(required = true) Expect expect) {

    public Scenario {
        if (name == null || !name.matches("[a-z0-9][a-z0-9-]*")) {
            throw new IllegalArgumentException("name must be lower-case letters, digits and dashes, got: '" + name + "'");
        }
        tags = tags == null ? List.of() : List.copyOf(tags);
        if (cells == null || cells.isEmpty()) {
            throw new IllegalArgumentException("cells must list at least one cell (backend × flavour)");
        }
        cells = List.copyOf(cells);
        if (repetitions != null && (repetitions < 1 || repetitions > 1000)) {
            throw new IllegalArgumentException("repetitions must be between 1 and 1000, got: " + repetitions);
        }
        Objects.requireNonNull(fault, "fault");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(expect, "expect");
    }

    public int repetitionsOrDefault() {
        return repetitions == null ? 1 : repetitions;
    }

    public Observe observeOrDefault() {
        return observe == null ? Observe.DEFAULT : observe;
    }
}
