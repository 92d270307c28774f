package dev.chainreaction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.Iptables;
import dev.chainreaction.netfilter.KubeProxyChains;
import dev.chainreaction.netfilter.KubeletChains;
import dev.chainreaction.netfilter.Ruleset;
import dev.chainreaction.netfilter.RulesetDiff;
import dev.chainreaction.probe.HttpSample;
import dev.chainreaction.probe.NpmDetection;
import dev.chainreaction.report.Phase;
import io.fabric8.kubernetes.api.model.Service;
import io.qameta.allure.Allure;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.testcontainers.DockerClientFactory;

/** A real single-node cluster from the node image: kubelet, kube-proxy, iptables.service, all for real. */
@Tag("node")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeImageClusterTest {
    static HostSettings hostBefore;
    static NodeImageCluster cluster;
    static Workloads lab;
    static Instant bootStarted;

    @BeforeAll
    static void bootNode() {
        hostBefore = HostSettings.snapshot();
        bootStarted = Instant.now();
        cluster = NodeImageCluster.start(NodeImageClusterRequirement.image());
        Allure.addAttachment("boot times", cluster.bootTimes().toString());
        lab = new Workloads(cluster.client(), "cca-dp").createNamespace();
    }

    @AfterAll
    static void removeNode() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void nodeIsReadyWithThePinnedVersionAndKubeletInitialisedItsRules() {
        String pinned = Versions.kubernetes();
        assertThat(cluster.node().exec("kubelet", "--version").orThrow().stdout().strip()).isEqualTo("Kubernetes " + pinned);
        assertThat(cluster.client().getKubernetesVersion().getGitVersion()).isEqualTo(pinned);
        assertThat(cluster.client().nodes().list().getItems()).singleElement()
                .satisfies(n -> assertThat(n.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo(pinned));
        String journal = cluster.node().journal("kubelet", bootStarted.minusSeconds(60));
        Allure.addAttachment("kubelet journal", journal);
        assertThat(journal).contains("Initialized iptables rules.");

        NpmDetection.Verdict npm = NpmDetection.run(cluster.node());
        Allure.addAttachment("NPM detection transcript", npm.log());
        assertThat(npm.detected()).contains(Backend.NFT);
    }

    @Test
    @Order(2)
    void webAnswersThroughNodePortFromTheNodeAndThroughClusterIpFromAPod() {
        lab.deployWeb(2);
        Service clusterIp = lab.expose("web", "web", "ClusterIP", 0);
        Service nodePort = lab.expose("web-np", "web", "NodePort", 30780);
        lab.startClient("client");
        String node = cluster.node().ip();

        HttpSample viaNodePort = Phase.run("GET through NodePort 30780 from the node",
                () -> awaitOk(cluster.node(), "http://" + node + ":30780/"));
        HttpSample viaClusterIp = Phase.run("GET through the ClusterIP from pod client",
                () -> awaitOk(lab.podShell("client"), "http://" + clusterIp.getSpec().getClusterIP() + "/"));

        assertThat(viaNodePort.httpCode()).isEqualTo(200);
        assertThat(viaNodePort.body()).contains(Workloads.WEB_BODY);
        assertThat(viaClusterIp.httpCode()).isEqualTo(200);
        assertThat(nodePort.getSpec().getPorts().get(0).getNodePort()).isEqualTo(30780);
        Ruleset nat = new Iptables(cluster.node(), Backend.NFT).save();
        assertThat(KubeProxyChains.hasNodePortRule(nat, 30780)).as("nat KUBE-NODEPORTS rule for 30780").isTrue();
    }

    @Test
    @Order(3)
    void serviceWithoutEndpointsIsRefusedAtOnceByKubeProxysReject() {
        Service ghost = lab.expose("ghost", "nothing-matches-this", "ClusterIP", 0);
        String url = "http://" + ghost.getSpec().getClusterIP() + "/";
        lab.startClient("client");
        Phase.await("kube-proxy's REJECT for cca-dp/ghost", Duration.ofSeconds(60), Duration.ofSeconds(1),
                () -> KubeProxyChains.noEndpointsReject("cca-dp", "ghost", "http")
                        .presentIn(new Iptables(cluster.node(), Backend.NFT).save()), () -> false, "");

        HttpSample sample = HttpSample.get(lab.podShell("client"), url, Duration.ofSeconds(5));

        assertThat(sample.curlExit()).as("curl exit (7 = refused)").isEqualTo(7);
        assertThat(sample.time()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    @Order(4)
    void systemctlRestartIptablesFlushesAndRestoresTheSavedFile() {
        Iptables nft = new Iptables(cluster.node(), Backend.NFT);
        Ruleset before = nft.save();
        assertThat(KubeletChains.HINT.presentIn(before)).isTrue();
        // The distribution's ip4save holds none of kubelet's or kube-proxy's chains, so the diff shows the flush.
        cluster.node().exec("sh", "-c", "cp /etc/systemd/scripts/ip4save.azurelinux /etc/systemd/scripts/ip4save").orThrow();

        cluster.node().restartService("iptables");

        Ruleset after = nft.save();
        RulesetDiff diff = RulesetDiff.between(before, after);
        Allure.addAttachment("iptables-save diff across systemctl restart iptables", diff.render());
        assertThat(diff.chainsRemoved()).extracting(Object::toString).contains("mangle/KUBE-IPTABLES-HINT",
                "mangle/KUBE-KUBELET-CANARY", "nat/KUBE-SERVICES", "nat/KUBE-PROXY-CANARY");
        assertThat(after.rules("filter", "INPUT")).anyMatch(r -> r.args().contains("22"));
        // kube-proxy notices its canary is gone and resyncs within its 30 s sync period.
        Phase.await("kube-proxy restores KUBE-SERVICES after the restart", Duration.ofSeconds(60), Duration.ofSeconds(1),
                () -> KubeProxyChains.SERVICES_NAT.presentIn(nft.save()), () -> !cluster.node().isRunning(), "node exited");
    }

    /** The journal since an instant holds nothing from before it, even within the same second (whole seconds did). */
    @Test
    @Order(5)
    void journalSinceAnInstantLeavesOutTheLinesJustBeforeIt() {
        Node node = cluster.node();
        node.exec("systemd-run", "--wait", "--quiet", "-u", "crx-journal-probe", "echo", "line-before").orThrow();
        java.time.Instant mark = java.time.Instant.now();
        node.exec("systemd-run", "--wait", "--quiet", "-u", "crx-journal-probe", "echo", "line-after").orThrow();

        String journal = node.journal("crx-journal-probe", mark);

        assertThat(journal).contains("line-after").doesNotContain("line-before");
    }

    @Test
    @Order(99)
    void hostIsUnchangedAndNothingIsLeftOnceTheNodeIsGone() {
        String name = cluster.containerName();
        cluster.close();
        cluster = null;

        List<String> changes = hostBefore.differencesTo(HostSettings.snapshot());
        assertThat(changes).as("host settings changed by the node's life").isEmpty();
        assertThat(DockerClientFactory.instance().client().listContainersCmd().withShowAll(true)
                .withNameFilter(List.of(name)).exec()).as("containers named " + name).isEmpty();
    }

    private static HttpSample awaitOk(Shell from, String url) {
        HttpSample[] last = new HttpSample[1];
        Phase.await("HTTP 200 from " + url, Duration.ofSeconds(60), Duration.ofMillis(500),
                () -> (last[0] = HttpSample.get(from, url, Duration.ofSeconds(2))).ok(), () -> false, "");
        return last[0];
    }
}
