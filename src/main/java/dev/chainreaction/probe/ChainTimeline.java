package dev.chainreaction.probe;

import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.NetfilterObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Presence of each watched chain or rule over time, for one backend: the lanes of the run's picture. */
public record ChainTimeline(Backend backend, List<String> ids, List<Sample> samples) {

    public record Sample(Instant at, Map<String, Boolean> present) {
    }

    public static ChainTimeline of(Backend backend, List<? extends NetfilterObject> objects, List<ChainState> states) {
        List<Sample> samples = new ArrayList<>();
        for (ChainState s : states) {
            samples.add(new Sample(s.at(), new LinkedHashMap<>(s.present().getOrDefault(backend, Map.of()))));
        }
        return new ChainTimeline(backend, objects.stream().map(NetfilterObject::id).toList(), samples);
    }

    /** When the object was first seen present at or after {@code since}, if it was. */
    public Optional<Instant> presentFrom(String id, Instant since) {
        return samples.stream().filter(s -> !s.at().isBefore(since) && Boolean.TRUE.equals(s.present().get(id)))
                .map(Sample::at).findFirst();
    }

    /** Time from {@code since} until it was present again (empty: never within the samples). */
    public Optional<Duration> recoveredAfter(String id, Instant since) {
        return presentFrom(id, since).map(at -> Duration.between(since, at));
    }

    public boolean presentAtEnd(String id) {
        return !samples.isEmpty() && Boolean.TRUE.equals(samples.get(samples.size() - 1).present().get(id));
    }
}
