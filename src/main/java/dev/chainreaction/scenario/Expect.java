package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.Map;

/** What a scenario expects; every part is optional, and an absent part is observed and reported, not checked. */
public record Expect(KubeletInit kubeletInit, NpmOutcome npm, Map<String, Recovery> chains, NodePort nodePort,
                     NoBackend noBackend, Cilium cilium) {

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

    /**
     * Cilium cells only (the Cilium lab's checks): the agent reports kube-proxy replacement; the NodePort answers
     * 200 with no iptables line naming it and no socket on it; after scaling web to each of {@code scaleTo},
     * the BPF Service map's backend slots equal the EndpointSlice's ready addresses within {@code syncWithin}.
     */
    public record Cilium(Boolean kubeProxyReplacement, Boolean nodePortServedByBpf, java.util.List<Integer> scaleTo,
                         Duration syncWithin) {
        public Cilium {
            scaleTo = scaleTo == null ? java.util.List.of() : java.util.List.copyOf(scaleTo);
            if (scaleTo.stream().anyMatch(n -> n < 0 || n > 20)) {
                throw new IllegalArgumentException("cilium.scaleTo replicas must be between 0 and 20, got: " + scaleTo);
            }
        }

        public Duration syncWithinOrDefault() {
            return syncWithin == null ? Duration.ofSeconds(60) : syncWithin;
        }
    }
}
