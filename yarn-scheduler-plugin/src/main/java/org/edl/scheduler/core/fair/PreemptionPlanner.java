package org.edl.scheduler.core.fair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * Decides which containers to take back so that users below their deserved share get it.
 *
 * <p>A pure function of a {@link ClusterSnapshot}: compute every active user's deserved GPUs
 * ({@link DeservedShares}, demand = held + pending); then, in a simulation, serve the starved
 * users (held below deserved, with pending requests) most starved first, each request in its
 * user's order: place it on free GPUs if some node fits it, else on the node where it costs the
 * fewest preempted GPUs, taking only
 *
 * <ul>
 *   <li>elastic extras ({@link RunningContainer#elasticExtra()}), so no job goes below its
 *       guaranteed minimum and the victims' jobs scale in rather than fail;
 *   <li>of users above their deserved share, and never so much that one falls below it;
 *   <li>on one node, lowest priority first, then the newest.
 * </ul>
 *
 * A request is served only while its user stays within its deserved share, and its victims
 * count only if the simulation places it; a user whose next request cannot be placed stops
 * there (its order is kept). The plan is the victims of the placed requests, or nothing.
 *
 * <p>Because victims stay at or above their share and beneficiaries at or below theirs, a plan
 * never makes the next plan take the GPUs back: no preemption ping-pong on a steady cluster.
 */
public final class PreemptionPlanner {
  /** Victims on one node: lowest priority first, then newest (by start time, then id). */
  static final Comparator<RunningContainer> VICTIM_ORDER =
      Comparator.comparingInt(RunningContainer::priority)
          .thenComparing(Comparator.comparingLong(RunningContainer::startTime).reversed())
          .thenComparing(Comparator.comparing(RunningContainer::id).reversed());

  private static final class Starved {
    final String user;
    final double weight;
    final long deserved;
    long held;
    final List<PendingRequest> requests;
    int next;

    Starved(String user, double weight, long deserved, long held, List<PendingRequest> requests) {
      this.user = user;
      this.weight = weight;
      this.deserved = deserved;
      this.held = held;
      this.requests = requests;
    }
  }

  /** Candidates on one node, in victim order, with their GPUs summed for pruning. */
  private static final class NodeVictims {
    final List<RunningContainer> containers = new ArrayList<>();
    long gpus;
  }

  private record Choice(String node, List<RunningContainer> victims, long preempted) {}

  public PreemptionPlan plan(ClusterSnapshot s) {
    long capacity = 0;
    for (NodeState n : s.nodes()) {
      capacity += n.freeGpus();
    }
    Map<String, Long> held = new TreeMap<>();
    for (RunningContainer c : s.containers()) {
      capacity += c.gpus();
      held.merge(c.user(), (long) c.gpus(), Long::sum);
    }
    Map<String, List<PendingRequest>> pendingByUser = new TreeMap<>();
    Map<String, Long> asked = new TreeMap<>(held);
    for (PendingRequest r : s.pending()) {
      pendingByUser.computeIfAbsent(r.user(), u -> new ArrayList<>()).add(r);
      asked.merge(r.user(), (long) r.gpus(), Long::sum);
    }
    List<DeservedShares.Demand> demands = new ArrayList<>();
    asked.forEach((u, g) -> demands.add(new DeservedShares.Demand(u, s.weight(u), g)));
    Map<String, Long> deserved = DeservedShares.compute(capacity, demands);

    PriorityQueue<Starved> starved =
        new PriorityQueue<>(
            (a, b) -> FairOrder.compareUsers(a.user, a.held, a.weight, b.user, b.held, b.weight));
    for (var e : pendingByUser.entrySet()) {
      String u = e.getKey();
      long h = held.getOrDefault(u, 0L);
      long d = deserved.getOrDefault(u, 0L);
      if (h < d) {
        e.getValue().sort(FairOrder.REQUESTS);
        starved.add(new Starved(u, s.weight(u), d, h, e.getValue()));
      }
    }
    if (starved.isEmpty()) {
      return new PreemptionPlan(s.takenAt(), deserved, List.of(), List.of());
    }

    // GPUs each over-share user can still give without falling below its share.
    Map<String, Long> spare = new HashMap<>();
    held.forEach(
        (u, h) -> {
          long over = h - deserved.getOrDefault(u, 0L);
          if (over > 0) {
            spare.put(u, over);
          }
        });
    Map<String, NodeVictims> candidates = new TreeMap<>();
    for (RunningContainer c : s.containers()) {
      if (c.elasticExtra() && c.gpus() > 0 && spare.containsKey(c.user())) {
        NodeVictims nv = candidates.computeIfAbsent(c.node(), n -> new NodeVictims());
        nv.containers.add(c);
        nv.gpus += c.gpus();
      }
    }
    candidates.values().forEach(nv -> nv.containers.sort(VICTIM_ORDER));

    FreeGpus free = new FreeGpus(s.nodes());
    List<RunningContainer> victims = new ArrayList<>();
    List<Placement> placements = new ArrayList<>();
    while (!starved.isEmpty()) {
      Starved u = starved.poll();
      PendingRequest r = u.requests.get(u.next);
      if (u.held + r.gpus() > u.deserved) {
        continue;
      }
      Choice choice = choose(r, free, candidates, spare);
      if (choice == null) {
        continue;
      }
      for (RunningContainer v : choice.victims) {
        NodeVictims nv = candidates.get(choice.node);
        nv.containers.remove(v);
        nv.gpus -= v.gpus();
        spare.merge(v.user(), (long) -v.gpus(), Long::sum);
        free.add(choice.node, v.gpus());
        victims.add(v);
      }
      free.add(choice.node, -r.gpus());
      placements.add(new Placement(r, choice.node));
      u.held += r.gpus();
      u.next++;
      if (u.next < u.requests.size()) {
        starved.add(u);
      }
    }
    if (victims.isEmpty()) {
      // Free GPUs suffice; the allocator will hand them out without anyone losing a container.
      return new PreemptionPlan(s.takenAt(), deserved, List.of(), placements);
    }
    return new PreemptionPlan(s.takenAt(), deserved, victims, placements);
  }

  private static Choice choose(
      PendingRequest r,
      FreeGpus free,
      Map<String, NodeVictims> candidates,
      Map<String, Long> spare) {
    String fits = free.bestFit(r.gpus());
    if (fits != null) {
      return new Choice(fits, List.of(), 0);
    }
    Choice best = null;
    Map<String, Long> used = new HashMap<>();
    for (var e : candidates.entrySet()) {
      String node = e.getKey();
      NodeVictims nv = e.getValue();
      long need = r.gpus() - free.of(node);
      if (nv.gpus < need) {
        continue;
      }
      used.clear();
      List<RunningContainer> taken = new ArrayList<>();
      long got = 0;
      for (RunningContainer c : nv.containers) {
        if (got >= need) {
          break;
        }
        long left = spare.getOrDefault(c.user(), 0L) - used.getOrDefault(c.user(), 0L);
        if (left >= c.gpus()) {
          used.merge(c.user(), (long) c.gpus(), Long::sum);
          taken.add(c);
          got += c.gpus();
        }
      }
      if (got >= need && (best == null || got < best.preempted)) {
        best = new Choice(node, taken, got);
      }
    }
    return best;
  }
}
