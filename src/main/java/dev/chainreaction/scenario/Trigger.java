package dev.chainreaction.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * When the fault fires: at one of kubelet's iptables steps (deterministic, through the interposer), at a seeded
 * random offset after kubelet (re)starts (stochastic), or a delay after kubelet logged "Initialized iptables rules.".
 */
public record Trigger(@JsonProperty(required = true) At at,
                      KubeletStep step,
                      Long seed,
                      Duration minOffset,
                      Duration maxOffset,
                      Duration delay,
                      Boolean thenRestartKubelet) {

    public enum At {
        @JsonProperty("kubelet-step") KUBELET_STEP,
        @JsonProperty("offset") OFFSET,
        @JsonProperty("after-ready") AFTER_READY
    }

    /** kubelet's iptables calls in syncIPTablesRules order, then the Monitor's canary. */
    public enum KubeletStep {
        @JsonProperty("hint") HINT,
        @JsonProperty("firewall") FIREWALL,
        @JsonProperty("output-jump") OUTPUT_JUMP,
        @JsonProperty("input-jump") INPUT_JUMP,
        @JsonProperty("localnet-drop") LOCALNET_DROP,
        @JsonProperty("canary") CANARY
    }

    public Trigger {
        if (at == At.KUBELET_STEP && step == null) {
            throw new IllegalArgumentException("trigger.step is required when at is kubelet-step; allowed: "
                    + Enums.allowed(KubeletStep.class));
        }
        if (at != At.KUBELET_STEP && step != null) {
            throw new IllegalArgumentException("trigger.step only applies when at is kubelet-step, got at: " + Enums.label(at));
        }
        if (at == At.OFFSET && (maxOffset == null || maxOffset.isZero() || maxOffset.isNegative())) {
            throw new IllegalArgumentException("trigger.maxOffset must be a positive duration when at is offset, got: " + maxOffset);
        }
        if (minOffset != null && maxOffset != null && minOffset.compareTo(maxOffset) >= 0) {
            throw new IllegalArgumentException("trigger.minOffset must be less than maxOffset, got: " + minOffset + " >= " + maxOffset);
        }
    }

    /** After the fault and kubelet's verdict, restart kubelet once more: the documented way to heal a node. */
    public boolean thenRestartKubeletOrDefault() {
        return thenRestartKubelet != null && thenRestartKubelet;
    }

    public Duration delayOrDefault() {
        return delay == null ? Duration.ZERO : delay;
    }

    public Duration minOffsetOrDefault() {
        return minOffset == null ? Duration.ZERO : minOffset;
    }
}
