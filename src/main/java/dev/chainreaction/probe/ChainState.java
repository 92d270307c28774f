package dev.chainreaction.probe;

import dev.chainreaction.netfilter.Backend;
import dev.chainreaction.netfilter.Iptables;
import dev.chainreaction.netfilter.NetfilterObject;
import dev.chainreaction.netfilter.Ruleset;
import dev.chainreaction.cluster.Shell;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Which of a list of owned chains and rules exist, per backend, at one instant. */
public record ChainState(Instant at, Map<Backend, Map<String, Boolean>> present, Map<Backend, Ruleset> rulesets) {

    public static ChainState observe(Shell node, List<? extends NetfilterObject> objects, List<Backend> backends) {
        Instant at = Instant.now();
        Map<Backend, Map<String, Boolean>> present = new LinkedHashMap<>();
        Map<Backend, Ruleset> rulesets = new LinkedHashMap<>();
        for (Backend backend : backends) {
            Ruleset ruleset = new Iptables(node, backend).save();
            rulesets.put(backend, ruleset);
            Map<String, Boolean> row = new LinkedHashMap<>();
            objects.forEach(o -> row.put(o.id(), o.presentIn(ruleset)));
            present.put(backend, row);
        }
        return new ChainState(at, present, rulesets);
    }

    public boolean has(Backend backend, NetfilterObject object) {
        return present.getOrDefault(backend, Map.of()).getOrDefault(object.id(), false);
    }

    /** The ids of the given objects that are absent in the backend. */
    public List<String> missing(Backend backend, List<? extends NetfilterObject> objects) {
        return objects.stream().filter(o -> !has(backend, o)).map(NetfilterObject::id).toList();
    }
}
