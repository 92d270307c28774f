package dev.chainreaction.scenario;

import dev.chainreaction.probe.ChainTimeline;
import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.probe.KubeletInitVerdict;
import dev.chainreaction.probe.NpmDetection;
import dev.chainreaction.probe.cilium.CiliumDatapath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Everything one run saw, before any judgement: kubelet's verdict, NPM's, the chains over time, the probe samples
 * and (Cilium cells) the datapath checks. {@code faultEnd} is when the fault's restore finished: recovery times
 * count from it.
 */
public record Observation(KubeletInitVerdict kubeletInit, NpmDetection.Verdict npm, ChainTimeline chains,
                          Instant faultStart, Instant faultEnd, Duration window, List<HttpSample> nodePort,
                          List<HttpSample> noBackend, Optional<CiliumObservation> cilium) {

    public Observation {
        nodePort = List.copyOf(nodePort);
        noBackend = List.copyOf(noBackend);
    }

    /** What the Cilium agent and the datapath showed, re-read at the end of the run. */
    public record CiliumObservation(Optional<Boolean> kubeProxyReplacement, String serviceNoBackendResponse,
                                    CiliumDatapath.NodePortPath nodePort, List<CiliumDatapath.ServiceMapSync> scaling) {
        public CiliumObservation {
            scaling = List.copyOf(scaling);
        }
    }
}
