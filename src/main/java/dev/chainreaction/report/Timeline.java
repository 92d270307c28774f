package dev.chainreaction.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * One run on one time axis: fault start and end, each interposed iptables call, the log lines that matter and
 * every probe sample. Rendered as text for people and JSON for tools.
 */
public final class Timeline {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).enable(SerializationFeature.INDENT_OUTPUT);
    private final List<Event> events = new ArrayList<>();

    public record Event(Instant at, String lane, String text) {
    }

    public synchronized void add(Instant at, String lane, String text) {
        events.add(new Event(at, lane, text));
    }

    public synchronized List<Event> events() {
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparing(Event::at));
        return sorted;
    }

    /** "+  1.234s  fault      systemctl restart iptables ..." relative to the first event. */
    public String render() {
        List<Event> sorted = events();
        if (sorted.isEmpty()) {
            return "(no events)\n";
        }
        Instant t0 = sorted.get(0).at();
        StringBuilder sb = new StringBuilder("t0 = ").append(t0).append('\n');
        for (Event e : sorted) {
            double s = Duration.between(t0, e.at()).toNanos() / 1e9;
            sb.append(String.format(Locale.ROOT, "+%8.3fs  %-10s %s%n", s, e.lane(), e.text()));
        }
        return sb.toString();
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(events());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
