package dev.chainreaction.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioLoaderTest {
    static final String VALID = """
            name: race
            cells:
              - {backend: node-image, flavour: kube-proxy}
            repetitions: 3
            fault: {kind: iptables-service-restart, backend: legacy, savedRules: snapshot-earlier, gap: 200ms}
            trigger: {at: kubelet-step, step: output-jump}
            observe: {window: 2m}
            expect:
              kubeletInit: failed
              npm: fails
              chains:
                hint: {never: true}
                proxy/firewall: {within: 35s}
            """;

    @Test
    void readsEveryFieldIntoTheTypedModel() {
        Scenario s = ScenarioLoader.parse("race.yaml", VALID);

        assertThat(s.cells()).singleElement().extracting(Cell::label).isEqualTo("node-image/kube-proxy");
        assertThat(s.repetitionsOrDefault()).isEqualTo(3);
        assertThat(s.fault().backendOrDefault()).isEqualTo(dev.chainreaction.netfilter.Backend.LEGACY);
        assertThat(s.fault().gapOrDefault()).isEqualTo(Duration.ofMillis(200));
        assertThat(s.trigger().step()).isEqualTo(Trigger.KubeletStep.OUTPUT_JUMP);
        assertThat(s.observeOrDefault().windowOrDefault()).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.expect().npm()).isEqualTo(Expect.NpmOutcome.FAILS);
        assertThat(s.expect().chains().get("hint").expectsNever()).isTrue();
        assertThat(s.expect().chains().get("proxy/firewall").within()).isEqualTo(Duration.ofSeconds(35));
    }

    @Test
    void wrongEnumValueNamesFileFieldAndAllowedValues() {
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("snapshot-earlier", "snapshot-later")))
                .isInstanceOf(ScenarioException.class)
                .hasMessage("race.yaml: field 'fault.savedRules': 'snapshot-later' is not allowed; allowed: "
                        + "snapshot-now, snapshot-earlier, distribution-default");
    }

    @Test
    void unknownFieldIsAnErrorListingTheKnownOnes() {
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("gap: 200ms", "gapp: 200ms")))
                .hasMessageStartingWith("race.yaml: field 'fault.gapp': unknown field; allowed here: ")
                .hasMessageContaining("gap");
    }

    @Test
    void badDurationAndMissingRequiredFieldAreNamed() {
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("gap: 200ms", "gap: soon")))
                .hasMessage("race.yaml: field 'fault.gap': 'soon' is not a duration; write e.g. 200ms, 90s, 2m");
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("step: output-jump", "seed: 1")))
                .hasMessageContaining("race.yaml: field 'trigger': trigger.step is required when at is kubelet-step; allowed: hint, firewall, output-jump, input-jump, localnet-drop, canary");
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("name: race\n", "")))
                .hasMessage("race.yaml: field 'name': required but missing");
    }

    @Test
    void unknownChainIdAndDuplicateKeysAreErrors() {
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("    hint:", "    hints:")))
                .hasMessageStartingWith("race.yaml: field 'expect.chains.hints': unknown chain id; allowed: ")
                .hasMessageContaining("canary/mangle");
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID + "repetitions: 4\n"))
                .hasMessageContaining("race.yaml: ")
                .hasMessageContaining("Duplicate field 'repetitions'");
    }

    @Test
    void nodeImageHasNoCiliumFlavour() {
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("flavour: kube-proxy", "flavour: cilium")))
                .hasMessageContaining("the node-image backend has no cilium flavour; allowed: kube-proxy");
    }

    @Test
    void ciliumSettingsAndExpectationsAreReadAndCheckedWhereTheyBelong() {
        String cilium = VALID.replace("{backend: node-image, flavour: kube-proxy}", "{backend: k3s, flavour: cilium, serviceNoBackendResponse: drop}")
                + "  cilium: {kubeProxyReplacement: true, nodePortServedByBpf: true, scaleTo: [4, 2], syncWithin: 45s}\n";
        Scenario s = ScenarioLoader.parse("race.yaml", cilium);
        assertThat(s.cells()).singleElement().extracting(Cell::label).isEqualTo("k3s/cilium(drop)");
        assertThat(s.expect().cilium().scaleTo()).containsExactly(4, 2);
        assertThat(s.expect().cilium().syncWithinOrDefault()).isEqualTo(Duration.ofSeconds(45));

        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("flavour: kube-proxy}", "flavour: kube-proxy, serviceNoBackendResponse: drop}")))
                .hasMessageContaining("race.yaml: field 'cells[0]'")
                .hasMessageContaining("serviceNoBackendResponse is Cilium's setting; only a cilium cell takes it");
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", cilium.replace("drop}", "ignore}")))
                .hasMessage("race.yaml: field 'cells[0].serviceNoBackendResponse': 'ignore' is not allowed; allowed: reject, drop");
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", cilium.replace("[4, 2]", "[40]")))
                .hasMessageContaining("cilium.scaleTo replicas must be between 0 and 20, got: [40]");
    }

    @Test
    void aSweepOfGapsTakesThemInTurnAndExcludesASingleGap() {
        Scenario s = ScenarioLoader.parse("race.yaml", VALID.replace("gap: 200ms", "gaps: [0ms, 500ms, 2s]"));
        assertThat(List.of(1, 2, 3, 4).stream().map(s.fault()::gapFor).toList())
                .containsExactly(Duration.ZERO, Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ZERO);
        assertThatThrownBy(() -> ScenarioLoader.parse("race.yaml", VALID.replace("gap: 200ms", "gap: 200ms, gaps: [1s]")))
                .hasMessageContaining("give either gap (one) or gaps (a sweep, one per repetition in turn), not both");
    }

    @Test
    void loadAllReportsEveryBadFileAndChecksNameMatchesFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("race.yaml"), VALID);
        Files.writeString(dir.resolve("other.yaml"), VALID);
        Files.writeString(dir.resolve("broken.yaml"), VALID.replace("npm: fails", "npm: maybe"));

        assertThatThrownBy(() -> ScenarioLoader.loadAll(dir))
                .hasMessageContaining("broken.yaml: field 'expect.npm': 'maybe' is not allowed; allowed: nft, legacy, fails")
                .hasMessageContaining("other.yaml: field 'name': must match the file name 'other', got: 'race'");
    }

    @Test
    void everyShippedScenarioLoads() {
        List<Scenario> shipped = ScenarioLoader.loadAll(Path.of(System.getProperty("chainreaction.projectDir", "."), "scenarios"));
        assertThat(shipped).extracting(Scenario::name).contains("kubelet-init-race", "restart-after-ready",
                "kubelet-restart-heals", "fixed-node-script", "nodeport-through-restart", "no-backend-reject",
                "race-window-sweep", "cilium-datapath", "cilium-no-backend-drop");
    }
}
