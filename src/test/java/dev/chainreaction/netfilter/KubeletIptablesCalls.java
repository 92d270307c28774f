package dev.chainreaction.netfilter;

import dev.chainreaction.cluster.ExecResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Issues, through real iptables, the commands kubelet's syncIPTablesRules and Monitor issue (ground truth §1, §2),
 * so namespace tests start from the ruleset a healthy kubelet leaves. Not a kubelet: the node-image tests run the
 * real one.
 */
public final class KubeletIptablesCalls {
    private KubeletIptablesCalls() {
    }

    public static void initialise(Iptables iptables) {
        List<List<String>> commands = KubeletChains.initCommandsIpv4();
        for (int i = 0; i < commands.size(); i++) {
            List<String> cmd = commands.get(i);
            ExecResult r = run(iptables, cmd);
            boolean check = cmd.get(0).equals("-C");
            if (check && r.exitCode() == 0) {
                i++; // rule exists: kubelet skips the -I/-A that follows its -C
            } else if (!(check && r.exitCode() == 1) && !(cmd.get(0).equals("-N") && r.exitCode() == 1)) {
                r.orThrow();
            }
        }
        for (String table : List.of("mangle", "nat", "filter")) {
            run(iptables, List.of("-N", KubeletChains.CANARY_CHAIN, "-t", table));
        }
    }

    private static ExecResult run(Iptables iptables, List<String> cmd) {
        List<String> args = new ArrayList<>(List.of("-w", "5"));
        args.addAll(cmd);
        return iptables.run(args.toArray(String[]::new));
    }
}
