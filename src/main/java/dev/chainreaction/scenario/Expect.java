package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.Map;

/** What a scenario expects; every part is optional, and an absent part is observed and reported, not checked. */
public record Expect(KubeletInit kubeletInit, NpmOutcome npm, Map<String, Recovery> chains, NodePort nodePort,
                     NoBackend noBackend) {

    public enum KubeletInit {
        @JsonProperty("initialized") INITIALIZED,
        @JsonProperty("failed") FAILED
    }

    public enum NpmOutcome {
        @JsonProperty("nft") NFT,
        @JsonProperty("legacy") LEGACY,
        @JsonProperty("fails") FAILS
    }

    public Expect {
        chains = chains == null ? Map.of() : Map.copyOf(chains);
    }

    /** Per chain id (see netfilter.KubeletChains / KubeProxyChains): back within a time, or never in the window. */
    public record Recovery(Duration within, Boolean never) {
        public Recovery {
            if ((within == null) == (never == null || !never)) {
                throw new IllegalArgumentException("a chain expectation needs exactly one of 'within: <duration>' or 'never: true'");
            }
        }

        public boolean expectsNever() {
            return never != null && never;
        }
    }

    /** NodePort availability: the largest outage allowed. */
    public record NodePort(@JsonProperty(required = true) Duration maxOutage) {
    }

    /** A Service without backends: curl's exit code and how quickly it must come. */
    public record NoBackend(@JsonProperty(required = true) Integer curlExit, Duration maxTime) {
        public NoBackend {
            if (curlExit != null && curlExit != 7 && curlExit != 28) {
                throw new IllegalArgumentException("noBackend.curlExit must be 7 (refused) or 28 (timed out), got: " + curlExit);
            }
        }
    }
}
