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

  /** A container that may be taken, with its user's index into the spare-GPU array. */
  private record Candidate(RunningContainer container, int user) {}

  /**
   * Candidates on one node, in victim order, with their GPUs summed for pruning. A candidate
   * whose user's spare GPUs fell below its size is dropped for good: spare only shrinks.
   */
  private static final class NodeVictims {
    final List<Candidate> candidates = new ArrayList<>();
    long gpus;
  }

  private record Choice(String node, List<Candidate> victims, long preempted) {}

  public PreemptionPlan plan(ClusterSnapshot s) {
    long capacity = 0;
    for (NodeState n : s.nodes()) {
      capacity += n.freeGpus();
    }
    // Hash maps while reading 10^5 containers; only the per-node map needs an order.
    Map<String, Long> held = new HashMap<>();
    for (RunningContainer c : s.containers()) {
      capacity += c.gpus();
      held.merge(c.user(), (long) c.gpus(), Long::sum);
    }
    Map<String, List<PendingRequest>> pendingByUser = new HashMap<>();
    Map<String, Long> asked = new HashMap<>(held);
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

    // GPUs each over-share user can still give without falling below its share, by user index.
    Map<String, Integer> index = new HashMap<>();
    List<Long> spareList = new ArrayList<>();
    held.forEach(
        (u, h) -> {
          long over = h - deserved.getOrDefault(u, 0L);
          if (over > 0) {
            index.put(u, spareList.size());
            spareList.add(over);
          }
        });
    long[] spare = new long[spareList.size()];
    for (int i = 0; i < spare.length; i++) {
      spare[i] = spareList.get(i);
    }
    Map<String, NodeVictims> byNode = new HashMap<>();
    for (RunningContainer c : s.containers()) {
      Integer ui = c.elasticExtra() && c.gpus() > 0 ? index.get(c.user()) : null;
      if (ui != null) {
        NodeVictims nv = byNode.computeIfAbsent(c.node(), n -> new NodeVictims());
        nv.candidates.add(new Candidate(c, ui));
        nv.gpus += c.gpus();
      }
    }
    TreeMap<String, NodeVictims> candidates = new TreeMap<>(byNode);
    candidates.values().forEach(
        nv -> nv.candidates.sort(Comparator.comparing(Candidate::container, VICTIM_ORDER)));

    FreeGpus free = new FreeGpus(s.nodes());
    List<RunningContainer> victims = new ArrayList<>();
    List<Placement> placements = new ArrayList<>();
    long[] used = new long[spare.length];
    while (!starved.isEmpty()) {
      Starved u = starved.poll();
      PendingRequest r = u.requests.get(u.next);
      if (u.held + r.gpus() > u.deserved) {
        continue;
      }
      Choice choice = choose(r, free, candidates, spare, used);
      if (choice == null) {
        continue;
      }
      NodeVictims nv = candidates.get(choice.node);
      for (Candidate v : choice.victims) {
        int g = v.container().gpus();
        nv.candidates.remove(v);
        nv.gpus -= g;
        spare[v.user()] -= g;
        free.add(choice.node, g);
        victims.add(v.container());
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

  /**
   * Free GPUs if a node has them; else the node where the request costs the fewest preempted
   * GPUs (ties: the first node by id). No node can cost less than the request minus the most
   * free GPUs on any node, so the search stops at the first node that costs exactly that.
   */
  private static Choice choose(
      PendingRequest r,
      FreeGpus free,
      TreeMap<String, NodeVictims> candidates,
      long[] spare,
      long[] used) {
    String fits = free.bestFit(r.gpus());
    if (fits != null) {
      return new Choice(fits, List.of(), 0);
    }
    long floor = r.gpus() - free.max();
    Choice best = null;
    var nodes = candidates.entrySet().iterator();
    while (nodes.hasNext()) {
      var e = nodes.next();
      String node = e.getKey();
      NodeVictims nv = e.getValue();
      long need = r.gpus() - free.of(node);
      if (nv.gpus < need || (best != null && need >= best.preempted)) {
        continue;
      }
      List<Candidate> taken = new ArrayList<>();
      long got = 0;
      var it = nv.candidates.iterator();
      while (got < need && it.hasNext()) {
        Candidate c = it.next();
        int g = c.container().gpus();
        if (spare[c.user()] < g) {
          it.remove();
          nv.gpus -= g;
        } else if (spare[c.user()] - used[c.user()] >= g) {
          used[c.user()] += g;
          taken.add(c);
          got += g;
        }
      }
      for (Candidate c : taken) {
        used[c.user()] = 0;
      }
      if (nv.candidates.isEmpty()) {
        nodes.remove();
      }
      if (got >= need && (best == null || got < best.preempted)) {
        best = new Choice(node, taken, got);
        if (got <= floor) {
          break;
        }
      }
    }
    return best;
  }
}
