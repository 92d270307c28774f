package dev.chainreaction.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.netfilter.Backend;

/**
 * What the iptables service restores after its flush: the content of ip4save/ip6save. Which one matters most:
 * a snapshot taken before kubelet created its chains restores a node without them.
 */
public sealed interface SavedRules {

    /** The ip4save and ip6save text this source stands for, on that node's backend, now. */
    Contents resolve(Shell node, Backend backend);

    String describe();

    record Contents(String ipv4, String ipv6) {
    }

    /** iptables-save at the moment the fault fires, as the incident's iptables_save script did. */
    record SnapshotNow() implements SavedRules {
        @Override
        public Contents resolve(Shell node, Backend backend) {
            return new Contents(node.exec(List.of(backend.save()), null).orThrow().stdout(),
                    node.exec(List.of(backend.ip6save()), null).orThrow().stdout());
        }

        @Override
        public String describe() {
            return "snapshot taken when it fires";
        }
    }

    /** A snapshot taken earlier (e.g. before kubelet started), in iptables-save format. */
    record Snapshot(String ipv4, String ipv6) implements SavedRules {
        /** Takes the snapshot now, to be restored by a later fault. */
        public static Snapshot take(Shell node, Backend backend) {
            Contents c = new SnapshotNow().resolve(node, backend);
            return new Snapshot(c.ipv4(), c.ipv6());
        }

        @Override
        public Contents resolve(Shell node, Backend backend) {
            return new Contents(ipv4, ipv6);
        }

        @Override
        public String describe() {
            return "snapshot taken earlier";
        }
    }

    /** Azure Linux's shipped ip4save/ip6save. */
    record DistributionDefault() implements SavedRules {
        @Override
        public Contents resolve(Shell node, Backend backend) {
            return new Contents(resource("azurelinux-ip4save"), resource("azurelinux-ip6save"));
        }

        @Override
        public String describe() {
            return "Azure Linux default ip4save";
        }
    }

    /** How scenario files name the source; a {@link Snapshot} is taken by the runner at its chosen moment. */
    enum Source {
        SNAPSHOT_NOW, SNAPSHOT_EARLIER, DISTRIBUTION_DEFAULT;

        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    static String resource(String name) {
        return resource(SavedRules.class, name);
    }

    /** A saved-rules file shipped in the harness jar, beside {@code owner}. */
    public static String resource(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " missing from the harness jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
