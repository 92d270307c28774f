package dev.chainreaction.scenario;

import dev.chainreaction.cluster.Cluster;
import dev.chainreaction.cluster.K3sCluster;
import dev.chainreaction.cluster.K3sFlavour;
import dev.chainreaction.cluster.K3sImages;
import dev.chainreaction.cluster.NodeImageCluster;
import dev.chainreaction.cluster.Workloads;
import dev.chainreaction.report.RunSummary;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cluster per cell, booted when its first scenario needs it and reused (reset between runs) until the suite
 * ends. Knows, before anything boots, whether a cell can run here at all, and why not.
 */
public final class Cells implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Cells.class);
    private final RunSummary summary;
    private final Function<String, K3sImages.Availability> images;
    private final Map<String, Optional<String>> availability = new LinkedHashMap<>();
    private final Map<String, Booted> booted = new LinkedHashMap<>();

    private record Booted(Cluster cluster, ScenarioRunner runner, String failure) {
    }

    public Cells(RunSummary summary) {
        this(summary, K3sImages::availability);
    }

    Cells(RunSummary summary, Function<String, K3sImages.Availability> images) {
        this.summary = summary;
        this.images = images;
    }

    /** The cluster a cell runs on: cilium cells differ by their no-backend answer, so each has its own. */
    static String clusterKey(Cell cell) {
        return cell.flavour() == Cell.Flavour.CILIUM
                ? Enums.label(cell.backend()) + "/cilium(" + Enums.label(cell.serviceNoBackendResponseOrDefault()) + ")"
                : cell.label();
    }

    /** "node-image/kube-proxy" or "k3s" (every k3s cell) or the exact label: how -Dchainreaction.cells names cells. */
    static boolean matches(Cell cell, List<String> wanted) {
        return wanted.stream().anyMatch(w -> w.equals(cell.label()) || w.equals(clusterKey(cell))
                || w.equals(Enums.label(cell.backend())) || w.equals(Enums.label(cell.backend()) + "/" + Enums.label(cell.flavour())));
    }

    /** Why the cell cannot run here (images that cannot be had), or empty when it can. Asked once per image. */
    public synchronized Optional<String> unavailable(Cell cell) {
        return switch (cell.backend()) {
            case NODE_IMAGE -> availability.computeIfAbsent("node-image", k -> nodeImageUnavailable());
            case K3S -> availability.computeIfAbsent("k3s", k -> k3sUnavailable());
        };
    }

    private Optional<String> nodeImageUnavailable() {
        String image;
        try {
            image = NodeImageCluster.configuredImage();
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage());
        }
        return images.apply(image).reason().map(r -> r + "; build it with infra/node-image/build.sh");
    }

    private Optional<String> k3sUnavailable() {
        List<String> reasons = new ArrayList<>();
        images.apply(K3sCluster.configuredImage()).reason().ifPresent(reasons::add);
        for (String lab : List.of(Workloads.HTTPD_IMAGE, Workloads.PROBE_IMAGE)) {
            images.apply(lab).reason().ifPresent(r -> reasons.add(r + " (the lab's pods; build it with infra/images/build.sh)"));
        }
        return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
    }

    /** The runner of the cell's cluster, booting it (and deploying the lab) the first time. */
    public synchronized ScenarioRunner runner(Scenario s, Cell cell) {
        Booted b = booted.computeIfAbsent(clusterKey(cell), k -> boot(cell));
        if (b.failure() != null) {
            summary.notRun(s.name(), cell.label(), b.failure());
            throw new IllegalStateException(b.failure());
        }
        return b.runner();
    }

    private Booted boot(Cell cell) {
        Instant t0 = Instant.now();
        Cluster cluster = null;
        try {
            cluster = switch (cell.backend()) {
                case NODE_IMAGE -> NodeImageCluster.start(NodeImageCluster.configuredImage());
                case K3S -> startK3s(cell);
            };
            summary.phase(clusterKey(cell) + ": boot (container start → node Ready)", Duration.between(t0, Instant.now()));
            Instant t1 = Instant.now();
            ScenarioRunner runner = new ScenarioRunner(cluster);
            runner.deployLab();
            summary.phase(clusterKey(cell) + ": lab deployed (web ×2, NodePort, ghost)", Duration.between(t1, Instant.now()));
            return new Booted(cluster, runner, null);
        } catch (RuntimeException e) {
            log.error("cell {} did not come up", clusterKey(cell), e);
            if (cluster != null) {
                cluster.close();
            }
            return new Booted(null, null, "the " + clusterKey(cell) + " cluster did not come up: " + e.getMessage());
        }
    }

    private static Cluster startK3s(Cell cell) {
        K3sFlavour flavour = cell.flavour() == Cell.Flavour.CILIUM ? K3sFlavour.CILIUM : K3sFlavour.KUBE_PROXY;
        K3sCluster.Options options = K3sCluster.Options.of(flavour);
        if (flavour == K3sFlavour.CILIUM) {
            options = options.withServiceNoBackendResponse(Enums.label(cell.serviceNoBackendResponseOrDefault()));
        }
        K3sCluster k3s = K3sCluster.start(options);
        try {
            k3s.loadImage(Workloads.HTTPD_IMAGE);
            k3s.loadImage(Workloads.PROBE_IMAGE);
        } catch (RuntimeException e) {
            k3s.close();
            throw e;
        }
        return k3s;
    }

    @Override
    public synchronized void close() {
        booted.values().stream().filter(b -> b.cluster() != null).forEach(b -> b.cluster().close());
        booted.clear();
    }
}
