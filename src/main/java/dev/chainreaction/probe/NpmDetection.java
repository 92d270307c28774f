package dev.chainreaction.probe;

import dev.chainreaction.cluster.ExecResult;
import dev.chainreaction.cluster.Shell;
import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.KubeletChains;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Azure NPM's iptables-backend detection (chain-management_linux.go): the same four commands in the same order,
 * stopping at the first success. NPM exits when none succeeds; this probe returns that as data.
 */
public final class NpmDetection {
    /** NPM's error, verbatim, as wrapped by its start-up code. */
    public static final String FAILURE =
            "failed to detect iptables version: unable to locate which iptables version kube proxy is using";
    public static final String LEGACY_TABLES_WARNING =
            "# Warning: iptables-legacy tables present, use iptables-legacy to see them";

    private static final List<Backend> BACKEND_ORDER = List.of(Backend.NFT, Backend.LEGACY);
    private static final List<String> CHAIN_ORDER = List.of(KubeletChains.HINT_CHAIN, KubeletChains.CANARY_CHAIN);

    private NpmDetection() {
    }

    public static Verdict run(Shell node) {
        List<Call> transcript = new ArrayList<>();
        for (Backend backend : BACKEND_ORDER) {
            for (String chain : CHAIN_ORDER) {
                List<String> args = List.of("-w", "60", "-L", chain, "-t", "mangle", "-n");
                List<String> argv = new ArrayList<>();
                argv.add(backend.iptables());
                argv.addAll(args);
                ExecResult r = node.exec(argv, null);
                transcript.add(new Call(backend, args, r.exitCode(), r.stderr().strip()));
                if (r.succeeded()) {
                    return new Verdict(Optional.of(backend), transcript);
                }
            }
        }
        return new Verdict(Optional.empty(), transcript);
    }

    /** One command NPM ran: its backend binary, arguments, exit status and stderr. */
    public record Call(Backend backend, List<String> args, int exitCode, String stderr) {
        public String command() {
            return backend.iptables() + " " + String.join(" ", args);
        }

        public boolean warnedAboutLegacyTables() {
            return stderr.contains(LEGACY_TABLES_WARNING);
        }

        /** The lines NPM logs for this call. */
        public List<String> logLines() {
            List<String> lines = new ArrayList<>();
            lines.add("executing iptables command [" + backend.iptables() + "] with args " + args.toString().replace(",", ""));
            if (exitCode != 0) {
                lines.add("error: There was an error running command: [" + command() + "] Stderr: [exit status "
                        + exitCode + ", " + stderr + "]");
            }
            return lines;
        }
    }

    /** The backend NPM would pick, or its failure, with every command it ran. */
    public record Verdict(Optional<Backend> detected, List<Call> transcript) {
        public Verdict {
            transcript = List.copyOf(transcript);
        }

        public boolean failed() {
            return detected.isEmpty();
        }

        public Optional<String> failure() {
            return detected.isPresent() ? Optional.empty() : Optional.of(FAILURE);
        }

        /** "nft", "legacy" or "fails", as scenario expectations spell it. */
        public String outcome() {
            return detected.map(Backend::label).orElse("fails");
        }

        /** NPM's log for this detection, as a person would see it with kubectl logs. */
        public String log() {
            StringBuilder sb = new StringBuilder();
            transcript.forEach(c -> c.logLines().forEach(l -> sb.append(l).append('\n')));
            sb.append(detected.map(b -> "detected iptables backend: " + b.label()).orElse("error: " + FAILURE)).append('\n');
            return sb.toString();
        }
    }
}
