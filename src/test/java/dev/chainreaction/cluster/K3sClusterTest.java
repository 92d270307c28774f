package dev.chainreaction.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.chainreaction.cluster.K3sImages.Availability;
import dev.chainreaction.cluster.K3sImages.Pull;
import dev.chainreaction.cluster.K3sImages.State;
import dev.chainreaction.netfilter.Backend;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pure parts of the k3s cells: command lines, the Cilium HelmChart, image availability, the restart loop. No Docker. */
class K3sClusterTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void kubeProxyFlavourKeepsTestcontainersDefaultsAndLeavesConntrackAlone() {
        assertThat(K3sFlavour.KUBE_PROXY.serverArgs("localhost")).containsExactly("server", "--disable=traefik",
                "--tls-san=localhost", "--kube-proxy-arg=conntrack-max-per-core=0");
    }

    @Test
    void ciliumFlavourIsCiliumsK3sGuideWithTheTlsSan() {
        assertThat(K3sFlavour.CILIUM.serverArgs("172.17.0.1")).containsExactly("server", "--flannel-backend=none",
                "--disable-network-policy", "--disable-kube-proxy", "--disable=traefik", "--disable=servicelb",
                "--tls-san=172.17.0.1");
        assertThat(K3sFlavour.fromLabel("cilium")).isEqualTo(K3sFlavour.CILIUM);
        assertThatThrownBy(() -> K3sFlavour.fromLabel("flannel"))
                .hasMessage("unknown k3s flavour 'flannel', allowed: kube-proxy, cilium");
    }

    @Test
    void helmChartInstallsCiliumWithKubeProxyReplacementAgainstTheNodesApiServer() throws IOException {
        JsonNode chart = YAML.readTree(new CiliumHelmChart("1.18.4", "172.18.0.2", 6443, "reject").manifest());

        assertThat(chart.path("apiVersion").asText()).isEqualTo("helm.cattle.io/v1");
        assertThat(chart.path("kind").asText()).isEqualTo("HelmChart");
        assertThat(chart.at("/metadata/namespace").asText()).isEqualTo("kube-system");
        JsonNode spec = chart.path("spec");
        assertThat(spec.path("repo").asText()).isEqualTo("https://helm.cilium.io/");
        assertThat(spec.path("chart").asText()).isEqualTo("cilium");
        assertThat(spec.path("version").isTextual()).isTrue();
        assertThat(spec.path("version").asText()).isEqualTo("1.18.4");
        assertThat(spec.path("targetNamespace").asText()).isEqualTo("kube-system");
        assertThat(spec.path("bootstrap").asBoolean()).isTrue();
        JsonNode values = YAML.readTree(spec.path("valuesContent").asText());
        assertThat(values.path("kubeProxyReplacement").isBoolean()).isTrue();
        assertThat(values.path("kubeProxyReplacement").asBoolean()).isTrue();
        assertThat(values.path("k8sServiceHost").asText()).isEqualTo("172.18.0.2");
        assertThat(values.path("k8sServicePort").asInt()).isEqualTo(6443);
        assertThat(values.path("serviceNoBackendResponse").asText()).isEqualTo("reject");
        assertThat(values.at("/ipam/mode").asText()).isEqualTo("kubernetes");
        assertThat(values.at("/operator/replicas").asInt()).isEqualTo(1);
        assertThat(values.at("/cni/confPath").asText()).isEqualTo("/var/lib/rancher/k3s/agent/etc/cni/net.d");
        assertThat(values.at("/cni/binPath").asText()).isEqualTo("/var/lib/rancher/k3s/data/current/bin");
    }

    @Test
    void serviceNoBackendResponseIsChosenPerCellAndChecked() throws IOException {
        JsonNode values = YAML.readTree(YAML.readTree(new CiliumHelmChart("1.18.4", "10.0.0.5", 6443, "DROP").manifest())
                .at("/spec/valuesContent").asText());

        assertThat(values.path("serviceNoBackendResponse").asText()).isEqualTo("drop");
        assertThatThrownBy(() -> new CiliumHelmChart("1.18.4", "10.0.0.5", 6443, "refuse"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serviceNoBackendResponse must be reject or drop, got: refuse");
        assertThatThrownBy(() -> new CiliumHelmChart("latest", "10.0.0.5", 6443, "reject"))
                .hasMessage("Cilium chart version must look like 1.18.4, got: latest");
        assertThatThrownBy(() -> new CiliumHelmChart("1.18.4", "10.0.0.5\"\nbpf: {}", 6443, "reject"))
                .hasMessageStartingWith("k8sServiceHost must be an address or host name");
        // Options checks the same before any container is made
        assertThatThrownBy(() -> new K3sCluster.Options(K3sCluster.DEFAULT_IMAGE, K3sFlavour.CILIUM, Backend.NFT, "1.18.4", "refuse"))
                .hasMessage("serviceNoBackendResponse must be reject or drop, got: refuse");
        assertThat(new K3sCluster.Options(K3sCluster.DEFAULT_IMAGE, K3sFlavour.CILIUM, Backend.NFT, "1.18.4", "reject")
                .withServiceNoBackendResponse("drop").chart("172.18.0.2").serviceNoBackendResponse()).isEqualTo("drop");
    }

    @Test
    void theDefaultImageIsAOneThirtyFourK3s() {
        assertThat(K3sCluster.DEFAULT_IMAGE).matches("rancher/k3s:v1\\.34\\.\\d+-k3s\\d+");
        assertThat(K3sCluster.IMAGE_PROPERTY).isEqualTo("chainreaction.k3sImage");
    }

    @Test
    void anImageThatCannotBePulledIsUnavailableWithTheDockerError() {
        String error = K3sImages.dockerError("Status 500: {\"message\":\"Get \\\"https://registry-1.docker.io/v2/\\\": dial tcp: "
                + "lookup registry-1.docker.io on 10.0.2.3:53: server misbehaving\"}\n");
        Availability a = K3sImages.availability("rancher/k3s:v1.34.2-k3s1", registry(false, new Pull.Failed(error)), Duration.ofSeconds(20));

        assertThat(a.available()).isFalse();
        assertThat(a.state()).isEqualTo(State.UNAVAILABLE);
        assertThat(a.reason()).contains("image rancher/k3s:v1.34.2-k3s1 is not present locally and cannot be pulled: "
                + "Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io on 10.0.2.3:53: server misbehaving");
        assertThatThrownBy(a::orThrow).isInstanceOf(K3sImages.UnavailableException.class)
                .hasMessage(a.reason().orElseThrow());
    }

    @Test
    void aSilentRegistryAndAMissingEngineAreReasonsToo() {
        Availability silent = K3sImages.availability("rancher/k3s:v1.34.2-k3s1", registry(false, new Pull.NoAnswer()), Duration.ofSeconds(20));
        Availability noEngine = K3sImages.availability("rancher/k3s:v1.34.2-k3s1", new K3sImages.Registry() {
            @Override
            public boolean presentLocally(String image) {
                throw new IllegalStateException("Could not find a valid Docker environment. Please see logs and check configuration");
            }

            @Override
            public Pull pull(String image, Duration limit) {
                throw new AssertionError("no pull without an engine");
            }
        }, Duration.ofSeconds(20));

        assertThat(silent.reason()).contains("image rancher/k3s:v1.34.2-k3s1 is not present locally and cannot be pulled: "
                + "no answer from the registry within 20s");
        assertThat(noEngine.reason()).contains("image rancher/k3s:v1.34.2-k3s1 cannot be checked: no Docker engine answered "
                + "(Could not find a valid Docker environment. Please see logs and check configuration)");
    }

    @Test
    void presentPulledOrStillPullingImagesAreAvailable() {
        assertThat(K3sImages.availability("i:1", registry(true, null), Duration.ofSeconds(20)))
                .isEqualTo(new Availability("i:1", State.PRESENT, java.util.Optional.empty()));
        assertThat(K3sImages.availability("i:1", registry(false, new Pull.Done()), Duration.ofSeconds(20)).state()).isEqualTo(State.PULLED);
        Availability pulling = K3sImages.availability("i:1", registry(false, new Pull.StillPulling()), Duration.ofSeconds(20));
        assertThat(pulling.available()).isTrue();
        assertThat(pulling.state()).isEqualTo(State.PULLING);
        assertThat(pulling.orThrow()).isSameAs(pulling);
    }

    @Test
    void theK3sLogSinceAnInstantKeepsOnlyLaterLinesWithoutTheirTimestamps() {
        String log = "2026-12-02T17:56:05.087935123Z E1202 Failed to initialize iptables rules\n"
                + "2026-12-02T17:56:05.912000000Z I1202 Initialized iptables rules.\n";
        assertThat(K3sCluster.linesSince(log, java.time.Instant.parse("2026-12-02T17:56:05.500Z")))
                .isEqualTo("I1202 Initialized iptables rules.\n");
    }

    @Test
    void dockerErrorsWithoutJsonStayAsTheyAre() {
        assertThat(K3sImages.dockerError("pull access denied for rancher/k3z, repository does not exist\n"))
                .isEqualTo("pull access denied for rancher/k3z, repository does not exist");
        assertThat(K3sImages.dockerError(null)).isEqualTo("(no message)");
    }

    @Test
    void onlyTheCiliumNodeMountsItsOwnSharedBpffsAndBothShieldTheHostsKernelSettings() {
        String cilium = K3sCluster.supervisorScript(K3sFlavour.CILIUM);
        String kubeProxy = K3sCluster.supervisorScript(K3sFlavour.KUBE_PROXY);

        assertThat(cilium).contains("mount -t bpf bpffs /sys/fs/bpf").contains("mount --make-shared /sys/fs/bpf");
        assertThat(kubeProxy).doesNotContain("bpf");
        for (String script : List.of(cilium, kubeProxy)) {
            assertThat(script).startsWith(K3sCluster.kernelSettingsShield()).endsWith(K3sCluster.restartLoop())
                    .contains("shadow kernel/panic 10", "shadow vm/overcommit_memory 1", "shadow kernel/panic_on_oops 1");
        }
    }

    /** The shield for real, on a scratch directory standing for /proc/sys, with mount replaced by cp (no root needed). */
    @Test
    void theShieldWritesTheValuesKubeletExpectsOverTheExistingSettingsOnly(@TempDir Path dir) throws Exception {
        Path procSys = dir.resolve("proc-sys");
        Files.createDirectories(procSys.resolve("kernel"));
        Files.writeString(procSys.resolve("kernel/panic"), "0\n");
        String shield = K3sCluster.kernelSettingsShield().replace("/proc/sys", procSys.toString())
                .replace("/run/chainreaction/sysctl", dir.resolve("shadows").toString())
                .replace("mount --bind \"$f\" ", "cp \"$f\" ").replace("&& mount -o remount,bind,ro \"" + procSys + "/$1\"", "");
        assertThat(shield).as("nothing may be mounted on this machine").doesNotContain("mount");

        ExecResult r = LocalProcess.run(List.of("sh", "-c", shield), null);

        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(Files.readString(procSys.resolve("kernel/panic"))).isEqualTo("10\n");
        assertThat(Files.readString(dir.resolve("shadows/kernel.panic"))).isEqualTo("10\n");
        assertThat(procSys.resolve("vm/overcommit_memory")).doesNotExist();
    }

    /**
     * The restart loop and the restart script for real, with /bin/k3s replaced by a stand-in that records its
     * arguments and sleeps: "restart kubelet" must give a new k3s process with the same arguments, and TERM to the
     * loop (docker stop) must end it and its k3s.
     */
    @Test
    void restartingK3sGivesANewProcessWithTheSameArgumentsAndStopEndsTheLoop(@TempDir Path dir) throws Exception {
        Path fake = dir.resolve("k3s");
        Path argsSeen = dir.resolve("args");
        Path pidFile = dir.resolve("k3s.pid");
        Path pathSeen = dir.resolve("path");
        Files.writeString(fake, "#!/bin/sh\necho \"$PATH\" > " + pathSeen + "\necho \"$@\" >> " + argsSeen + "\nexec sleep 1000\n");
        fake.toFile().setExecutable(true);
        String loop = K3sCluster.restartLoop().replace("/bin/k3s", fake.toString())
                .replace(K3sCluster.PID_FILE, pidFile.toString());
        Process supervisor = new ProcessBuilder("sh", "-c", loop, "chainreaction-k3s", "server", "--disable=traefik")
                .redirectErrorStream(true).start();
        try {
            String first = awaitPid(pidFile, "");
            org.awaitility.Awaitility.await("the stand-in k3s wrote its PATH").atMost(java.time.Duration.ofSeconds(5))
                    .until(() -> Files.exists(pathSeen) && Files.size(pathSeen) > 0);
            assertThat(Files.readString(pathSeen)).as("kubelet inside k3s finds the interposer first")
                    .startsWith(dev.chainreaction.fault.KubeletStepInterposer.binDir() + ":");

            ExecResult restart = LocalProcess.run(List.of("sh", "-c",
                    K3sCluster.restartScript().replace(K3sCluster.PID_FILE, pidFile.toString())), null);

            String second = awaitPid(pidFile, first);
            assertThat(restart.exitCode()).as(restart.stderr()).isZero();
            assertThat(restart.stdout().strip()).isEqualTo("k3s restarted: pid " + first + " -> " + second);
            assertThat(ProcessHandle.of(Long.parseLong(first))).isEmpty();
            assertThat(ProcessHandle.of(Long.parseLong(second))).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
            assertThat(Files.readAllLines(argsSeen)).containsExactly("server --disable=traefik", "server --disable=traefik");

            new ProcessBuilder("kill", "-TERM", String.valueOf(supervisor.pid())).start().waitFor();

            assertThat(supervisor.waitFor(10, TimeUnit.SECONDS)).as("loop ended after TERM").isTrue();
            assertThat(supervisor.exitValue()).isZero();
            assertThat(ProcessHandle.of(Long.parseLong(second)).map(ProcessHandle::isAlive)).isIn(java.util.Optional.empty(),
                    java.util.Optional.of(false));
            assertThat(new String(supervisor.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                    .contains("chainreaction: k3s (pid " + first + ") exited with status");
        } finally {
            supervisor.descendants().forEach(ProcessHandle::destroyForcibly);
            supervisor.destroyForcibly();
        }
    }

    private static String awaitPid(Path pidFile, String notThis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (Files.exists(pidFile)) {
                String pid = Files.readString(pidFile).strip();
                if (!pid.isEmpty() && !pid.equals(notThis)) {
                    return pid;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no new k3s pid in " + pidFile + " within 10s");
    }

    private static K3sImages.Registry registry(boolean present, Pull pull) {
        return new K3sImages.Registry() {
            @Override
            public boolean presentLocally(String image) {
                return present;
            }

            @Override
            public Pull pull(String image, Duration limit) {
                return pull;
            }
        };
    }
}
