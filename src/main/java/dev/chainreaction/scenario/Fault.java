package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.chainreaction.fault.SavedRules;
import java.time.Duration;

/** The fault a scenario injects: today, the iptables service restart with its parameters. */
public record Fault(@JsonProperty(required = true) Kind kind,
                    Backend backend,
                    SavedRulesSource savedRules,
                    Duration gap,
                    java.util.List<Duration> gaps) {

    public enum Kind {
        @JsonProperty("iptables-service-restart") IPTABLES_SERVICE_RESTART,
        /** The fixed node script: iptables-save to ip4save/ip6save, no restart. */
        @JsonProperty("iptables-save-only") IPTABLES_SAVE_ONLY
    }

    public enum Backend {
        @JsonProperty("nft") NFT,
        @JsonProperty("legacy") LEGACY
    }

    public enum SavedRulesSource {
        @JsonProperty("snapshot-now") SNAPSHOT_NOW,
        @JsonProperty("snapshot-earlier") SNAPSHOT_EARLIER,
        @JsonProperty("distribution-default") DISTRIBUTION_DEFAULT;

        public SavedRules.Source toSource() {
            return SavedRules.Source.valueOf(name());
        }
    }

    public Fault {
        if (gap != null && gaps != null) {
            throw new IllegalArgumentException("give either gap (one) or gaps (a sweep, one per repetition in turn), not both");
        }
        gaps = gaps == null ? null : java.util.List.copyOf(gaps);
        for (Duration g : gaps == null ? java.util.List.of(gap == null ? Duration.ZERO : gap) : gaps) {
            if (g.isNegative() || g.compareTo(Duration.ofMinutes(5)) > 0) {
                throw new IllegalArgumentException("gap must be between 0s and 5m, got: " + g);
            }
        }
        if (gaps != null && gaps.isEmpty()) {
            throw new IllegalArgumentException("gaps must list at least one gap");
        }
    }

    /** The gap of one repetition (1-based): a sweep's gaps in turn, else the one gap. */
    public Duration gapFor(int repetition) {
        return gaps == null ? gapOrDefault() : gaps.get((repetition - 1) % gaps.size());
    }

    public dev.chainreaction.netfilter.Backend backendOrDefault() {
        return backend == Backend.LEGACY ? dev.chainreaction.netfilter.Backend.LEGACY : dev.chainreaction.netfilter.Backend.NFT;
    }

    public SavedRulesSource savedRulesOrDefault() {
        return savedRules == null ? SavedRulesSource.SNAPSHOT_NOW : savedRules;
    }

    public Duration gapOrDefault() {
        return gap == null ? Duration.ZERO : gap;
    }
}
