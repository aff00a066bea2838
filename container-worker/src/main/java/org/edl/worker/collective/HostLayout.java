package org.edl.worker.collective;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a ring's members sit on hosts, for an all-reduce over hosts: a ring inside each host (its
 * members in ring order) and, for each position inside a host, a ring across the hosts through the
 * members at that position. A pure function of the topology, so every member derives the same.
 *
 * <p>Only where that moves fewer bytes over the links between hosts: at least two hosts, each
 * with the same number of members, at least two. A flat ring carries {@code 2(n-1)/n} of the data
 * over every link between hosts whatever its order; reduced inside the hosts first, each host's
 * link carries {@code 2(h-1)/h} of it for {@code h} hosts, {@code 1/k} through each of the
 * {@code k} rings across.
 */
record HostLayout(RingTopology inside, RingTopology across) {

  /** The two rings {@code self} belongs to, or empty where the flat ring is all there is. */
  static Optional<HostLayout> of(RingTopology topology, String self) {
    Map<String, List<RingTopology.Member>> byHost = new LinkedHashMap<>();
    for (RingTopology.Member m : topology.members()) {
      byHost.computeIfAbsent(m.host(), h -> new ArrayList<>()).add(m);
    }
    int perHost = byHost.values().iterator().next().size();
    if (byHost.size() < 2 || perHost < 2 || byHost.values().stream().anyMatch(l -> l.size() != perHost)) {
      return Optional.empty();
    }
    RingTopology.Member me = topology.member(topology.rankOf(self));
    List<RingTopology.Member> mine = byHost.get(me.host());
    int position = mine.indexOf(me);
    List<RingTopology.Member> across = byHost.values().stream().map(l -> l.get(position)).toList();
    return Optional.of(new HostLayout(new RingTopology(topology.version(), mine),
        new RingTopology(topology.version(), across)));
  }
}
