package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.chainreaction.fault.SavedRules;
import java.time.Duration;

/** The fault a scenario injects: today, the iptables service restart with its parameters. */
public record Fault(@JsonProperty(required = true) Kind kind,
                    Backend backend,
                    SavedRulesSource savedRules,
                    Duration gap) {

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
        if (gap != null && (gap.isNegative() || gap.compareTo(Duration.ofMinutes(5)) > 0)) {
            throw new IllegalArgumentException("gap must be between 0s and 5m, got: " + gap);
        }
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
