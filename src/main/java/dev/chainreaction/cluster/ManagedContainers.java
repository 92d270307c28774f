package dev.chainreaction.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * Labels on every container the harness starts, and the clean-up Ryuk would do where Ryuk cannot run: containers
 * are removed (with their volumes) on close and at JVM exit, and those of killed runs are reaped at the next start.
 */
public final class ManagedContainers {
    public static final String MANAGED = "dev.chainreaction.managed";
    public static final String OWNER = "dev.chainreaction.owner";
    private static final Logger log = LoggerFactory.getLogger(ManagedContainers.class);
    private static final String OWNER_ID = ProcessHandle.current().pid() + "@" + ManagementFactory.getRuntimeMXBean().getStartTime();
    private static final Set<GenericContainer<?>> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(ManagedContainers::remove), "chainreaction-cleanup"));
    }

    private ManagedContainers() {
    }

    public static Map<String, String> labels(String role) {
        return Map.of(MANAGED, "true", OWNER, OWNER_ID, "dev.chainreaction.role", role);
    }

    static void track(GenericContainer<?> container) {
        LIVE.add(container);
    }

    static void remove(GenericContainer<?> container) {
        LIVE.remove(container);
        try {
            container.stop(); // Testcontainers removes the container and its anonymous volumes
        } catch (RuntimeException e) {
            log.warn("could not remove container {}: {}", container.getContainerName(), e.getMessage());
        }
    }

    /** Removes harness containers whose owning process no longer runs (a killed run). */
    public static int reapLeftovers() {
        DockerClient docker = DockerClientFactory.instance().client();
        List<Container> ours = docker.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of(MANAGED, "true")).exec();
        int reaped = 0;
        for (Container c : ours) {
            String owner = c.getLabels().getOrDefault(OWNER, "");
            if (owner.equals(OWNER_ID) || ownerAlive(owner)) {
                continue;
            }
            log.info("removing leftover container {} of an earlier run (owner {} is gone)", String.join(",", c.getNames()), owner);
            docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
            reaped++;
        }
        return reaped;
    }

    private static boolean ownerAlive(String owner) {
        String[] parts = owner.split("@");
        if (parts.length != 2) {
            return false;
        }
        try {
            long pid = Long.parseLong(parts[0]);
            long started = Long.parseLong(parts[1]);
            // A pid can be reused: the owner is alive only if that pid's process started when the owner did.
            return ProcessHandle.of(pid).flatMap(p -> p.info().startInstant())
                    .map(i -> Math.abs(i.toEpochMilli() - started) < 2000).orElse(false);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
