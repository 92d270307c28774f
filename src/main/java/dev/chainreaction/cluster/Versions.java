package dev.chainreaction.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** The pinned versions of infra/versions.env: what a cell ran on, as reports state it. */
public final class Versions {
    private Versions() {
    }

    public static String kubernetes() {
        return read().getProperty("KUBERNETES_VERSION");
    }

    public static String etcd() {
        return read().getProperty("ETCD_VERSION");
    }

    private static Properties read() {
        Path file = Path.of(System.getProperty("chainreaction.projectDir", "."), "infra", "versions.env");
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read pinned versions from " + file, e);
        }
        return p;
    }
}
