package dev.chainreaction.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chainreaction.cluster.K3sCluster;
import dev.chainreaction.cluster.K3sImages;
import dev.chainreaction.cluster.NodeImageCluster;
import dev.chainreaction.report.RunSummary;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CellsTest {
    static final Cell NODE = new Cell(Cell.ClusterBackend.NODE_IMAGE, Cell.Flavour.KUBE_PROXY);
    static final Cell K3S_PROXY = new Cell(Cell.ClusterBackend.K3S, Cell.Flavour.KUBE_PROXY);
    static final Cell CILIUM = new Cell(Cell.ClusterBackend.K3S, Cell.Flavour.CILIUM);
    static final Cell CILIUM_DROP = new Cell(Cell.ClusterBackend.K3S, Cell.Flavour.CILIUM, Cell.NoBackendResponse.DROP);

    @TempDir
    Path reports;

    @Test
    void ciliumCellsShareAClusterOnlyWhenTheyAnswerNoBackendAlike() {
        assertThat(Cells.clusterKey(CILIUM)).isEqualTo("k3s/cilium(reject)")
                .isEqualTo(Cells.clusterKey(new Cell(Cell.ClusterBackend.K3S, Cell.Flavour.CILIUM, Cell.NoBackendResponse.REJECT)));
        assertThat(Cells.clusterKey(CILIUM_DROP)).isEqualTo("k3s/cilium(drop)");
        assertThat(Cells.clusterKey(NODE)).isEqualTo("node-image/kube-proxy");
    }

    @Test
    void cellsAreSelectedByBackendByBackendAndFlavourOrByLabel() {
        assertThat(Cells.matches(K3S_PROXY, List.of("k3s"))).isTrue();
        assertThat(Cells.matches(CILIUM_DROP, List.of("k3s/cilium"))).isTrue();
        assertThat(Cells.matches(CILIUM_DROP, List.of("k3s/cilium(reject)"))).isFalse();
        assertThat(Cells.matches(NODE, List.of("k3s", "k3s/cilium"))).isFalse();
        assertThat(Cells.matches(NODE, List.of("node-image/kube-proxy"))).isTrue();
    }

    @Test
    void k3sCellsThatCannotHaveTheirImagesSayWhichAndWhy() {
        List<String> asked = new ArrayList<>();
        Cells cells = new Cells(new RunSummary(reports), image -> {
            asked.add(image);
            return image.equals(K3sCluster.configuredImage())
                    ? new K3sImages.Availability(image, K3sImages.State.UNAVAILABLE, Optional.of("image " + image + " cannot be pulled: no registry"))
                    : new K3sImages.Availability(image, K3sImages.State.PRESENT, Optional.empty());
        });
        assertThat(cells.unavailable(K3S_PROXY)).hasValue("image " + K3sCluster.configuredImage() + " cannot be pulled: no registry");
        assertThat(cells.unavailable(CILIUM)).isEqualTo(cells.unavailable(K3S_PROXY));
        assertThat(asked).as("each image is asked about once per suite").doesNotHaveDuplicates();
    }

    @Test
    void aNodeImageCellWithoutAConfiguredImageSaysHowToBuildOne() {
        String before = System.getProperty(NodeImageCluster.IMAGE_PROPERTY);
        System.clearProperty(NodeImageCluster.IMAGE_PROPERTY);
        try {
            Cells cells = new Cells(new RunSummary(reports), image -> { throw new AssertionError("nothing to ask"); });
            Optional<String> reason = cells.unavailable(NODE);
            if (System.getenv("CHAINREACTION_NODE_IMAGE") == null) {
                assertThat(reason).get().asString().contains("infra/node-image/build.sh");
            }
        } finally {
            if (before != null) {
                System.setProperty(NodeImageCluster.IMAGE_PROPERTY, before);
            }
        }
    }
}
