package dev.chainreaction.cluster;

import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.IptablesSave;
import dev.chainreaction.netfilter.Ruleset;
import dev.chainreaction.netfilter.RulesetDiff;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a node must never change on the machine that hosts it: global kernel settings (kernel.*, vm.*, fs.*) and
 * the host's own netfilter rules, per backend. Snapshot before a node's life and compare after.
 */
public record HostSettings(Map<String, String> sysctls, Map<Backend, Ruleset> rulesets) {
    /** Counters and ids that move on their own on any running machine. */
    private static final Set<String> VOLATILE = Set.of("fs.dentry-state", "fs.file-nr", "fs.inode-nr",
            "fs.inode-state", "fs.quota.syncs", "kernel.ns_last_pid", "kernel.random.uuid", "kernel.random.entropy_avail");

    public static HostSettings snapshot() {
        Map<String, String> sysctls = new TreeMap<>();
        for (String line : LocalProcess.run(List.of("sysctl", "-a"), null).stdout().split("\n")) {
            int eq = line.indexOf(" = ");
            if (eq > 0 && line.matches("^(kernel|vm|fs)\\..*") && !VOLATILE.contains(line.substring(0, eq))) {
                sysctls.put(line.substring(0, eq), line.substring(eq + 3));
            }
        }
        Map<Backend, Ruleset> rulesets = new TreeMap<>();
        for (Backend b : Backend.values()) {
            ExecResult save = LocalProcess.run(List.of(b.save()), null);
            rulesets.put(b, save.succeeded() ? IptablesSave.parse(save.stdout()) : Ruleset.empty());
        }
        return new HostSettings(sysctls, rulesets);
    }

    /** Every difference, one per line ("kernel.panic: 0 -> 10", "nft: + filter: -A INPUT ..."); empty if none. */
    public List<String> differencesTo(HostSettings later) {
        List<String> out = new ArrayList<>();
        sysctls.forEach((k, v) -> {
            String after = later.sysctls.get(k);
            if (!v.equals(after)) {
                out.add(k + ": " + v + " -> " + after);
            }
        });
        later.sysctls.keySet().stream().filter(k -> !sysctls.containsKey(k)).forEach(k -> out.add(k + ": (new) " + later.sysctls.get(k)));
        rulesets.forEach((b, r) -> {
            RulesetDiff d = RulesetDiff.between(r, later.rulesets.getOrDefault(b, Ruleset.empty()));
            if (!d.isEmpty()) {
                d.render().lines().forEach(l -> out.add(b.label() + ": " + l));
            }
        });
        return out;
    }
}
