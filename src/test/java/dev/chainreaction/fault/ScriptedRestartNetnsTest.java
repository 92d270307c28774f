package dev.chainreaction.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.cluster.NetworkNamespace;
import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.Iptables;
import dev.chainreaction.netfilter.KubeletChains;
import dev.chainreaction.netfilter.KubeletIptablesCalls;
import dev.chainreaction.netfilter.Ruleset;
import dev.chainreaction.netfilter.RulesetDiff;
import dev.chainreaction.probe.ChainState;
import dev.chainreaction.probe.NpmDetection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Tag;

/** Azure Linux's iptables.service restart, run through real iptables in a throwaway namespace, per backend. */
@Tag("netns")
class ScriptedRestartNetnsTest {
    NetworkNamespace ns;

    @BeforeEach
    void createNamespace() {
        ns = NetworkNamespace.create();
    }

    @AfterEach
    void deleteNamespace() {
        ns.close();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void restoringASnapshotTakenBeforeKubeletLosesItsChainsAndNpmFails(Backend backend) {
        Iptables iptables = new Iptables(ns, backend).requireInstalled();
        SavedRules.Snapshot beforeKubelet = SavedRules.Snapshot.take(ns, backend);
        KubeletIptablesCalls.initialise(iptables);
        Ruleset healthy = iptables.save();

        FaultRecord fault = new ScriptedRestart(ns)
                .restart(new IptablesServiceRestart(backend, beforeKubelet, Duration.ofMillis(50)));

        Ruleset after = iptables.save();
        RulesetDiff diff = RulesetDiff.between(healthy, after);
        assertThat(diff.chainsRemoved()).extracting(Object::toString).contains("mangle/KUBE-IPTABLES-HINT",
                "mangle/KUBE-KUBELET-CANARY", "nat/KUBE-KUBELET-CANARY", "filter/KUBE-KUBELET-CANARY",
                "filter/KUBE-FIREWALL");
        assertThat(diff.rulesRemoved()).extracting(Object::toString).contains("filter: -A INPUT -j KUBE-FIREWALL",
                "filter: -A OUTPUT -j KUBE-FIREWALL");
        assertThat(ChainState.observe(ns, KubeletChains.ALL, List.of(backend)).missing(backend, KubeletChains.ALL))
                .containsExactlyElementsOf(KubeletChains.ALL.stream().map(o -> o.id()).toList());
        NpmDetection.Verdict npm = NpmDetection.run(ns);
        assertThat(npm.failure()).contains(NpmDetection.FAILURE);
        assertThat(fault.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(50));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void restoringASnapshotTakenNowBringsEveryKubeletChainBack(Backend backend) {
        Iptables iptables = new Iptables(ns, backend).requireInstalled();
        KubeletIptablesCalls.initialise(iptables);
        Ruleset healthy = iptables.save();

        new ScriptedRestart(ns).restart(new IptablesServiceRestart(backend, new SavedRules.SnapshotNow(), Duration.ZERO));

        Ruleset after = iptables.save();
        assertThat(KubeletChains.ALL).allMatch(o -> o.presentIn(after));
        RulesetDiff diff = RulesetDiff.between(healthy, after);
        // The restart's "-t raw -F" instantiates an empty raw table; nothing that existed may be lost.
        assertThat(diff.chainsRemoved()).as(diff.render()).isEmpty();
        assertThat(diff.rulesRemoved()).as(diff.render()).isEmpty();
        assertThat(NpmDetection.run(ns).detected()).contains(backend);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void distributionDefaultLeavesDropPoliciesAndOnlyItsOwnRules(Backend backend) {
        Iptables iptables = new Iptables(ns, backend).requireInstalled();
        KubeletIptablesCalls.initialise(iptables);

        new ScriptedRestart(ns).restart(new IptablesServiceRestart(backend, new SavedRules.DistributionDefault(), Duration.ZERO));

        Ruleset after = iptables.save();
        assertThat(after.table("filter").orElseThrow().chain("INPUT").orElseThrow().policy()).contains("DROP");
        assertThat(after.userChains()).isEmpty();
        assertThat(after.rules("filter", "INPUT")).hasSize(5);
    }
}
