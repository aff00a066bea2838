package org.edl.scheduler.core.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.edl.scheduler.core.fair.ClusterSnapshot;
import org.edl.scheduler.core.fair.DeservedShares;
import org.edl.scheduler.core.fair.NodeState;
import org.edl.scheduler.core.fair.PendingRequest;
import org.edl.scheduler.core.fair.Placement;
import org.edl.scheduler.core.fair.PreemptionPlan;
import org.edl.scheduler.core.fair.PreemptionPlanner;
import org.edl.scheduler.core.fair.RunningContainer;
import org.edl.scheduler.core.fair.UserHeap;

/**
 * Run:AI-style fair share as a cluster policy, over the very classes the ResourceManager plugin
 * runs ({@link UserHeap}, {@link DeservedShares}, {@link PreemptionPlanner} in
 * {@code core.fair}); this class only translates jobs to their requests and containers.
 *
 * <p>A job is two requests of its user: its guaranteed {@code ceil(r x requested)} GPUs
 * (priority 1) and, when it asks for more, its elastic extra (priority 0), so each user's
 * guaranteed parts go before its extras. The cluster is one pool of GPUs (one node). Before each
 * allocation pass, if some user with pending work holds less than it deserves, the planner picks
 * elastic extras of over-share users to take back; those jobs scale in to their guarantee and
 * their extras queue again. Jobs never grow beyond what they asked for.
 */
public final class FairSharePolicy implements ClusterPolicy {
  private static final String NODE = "cluster";

  private static final class JobState {
    final PolicyJob job;
    final String key;
    final int min;
    int base;
    int extra;
    int queued;

    JobState(PolicyJob job, int min) {
      this.job = job;
      this.key = Long.toString(job.id());
      this.min = min;
    }
  }

  private final int capacity;
  private final double minFraction;
  private final Map<String, Double> weights;
  private final UserHeap heap = new UserHeap(List.of());
  private final PreemptionPlanner planner = new PreemptionPlanner();
  private final Map<String, JobState> jobs = new HashMap<>();
  private final Map<String, JobState> running = new LinkedHashMap<>();
  private final Map<String, long[]> pendingGpus = new HashMap<>();
  private long pendingTotal;
  private int used;
  private long extrasHeld;
  private long requestSeq;
  private long preemptedContainers;

  /**
   * @param minFraction r: a job's guaranteed share of what it asks for, {@code (0, 1]}
   * @param weights user weights; a user not named has weight 1
   */
  public FairSharePolicy(int capacityGpus, double minFraction, Map<String, Double> weights) {
    if (!(minFraction > 0 && minFraction <= 1)) {
      throw new IllegalArgumentException("r " + minFraction + " not in (0, 1]");
    }
    this.capacity = capacityGpus;
    this.minFraction = minFraction;
    this.weights = Map.copyOf(weights);
  }

  @Override
  public String name() {
    return "fair";
  }

  @Override
  public int minGpus(PolicyJob job) {
    return Math.max(1, (int) Math.ceil(minFraction * job.requestedGpus() - 1e-9));
  }

  @Override
  public int maxGpus(PolicyJob job) {
    return job.requestedGpus();
  }

  /** Extras taken back by the planner so far. */
  public long preemptedContainers() {
    return preemptedContainers;
  }

  @Override
  public void arrived(PolicyJob job, double now) {
    JobState s = new JobState(job, Math.min(minGpus(job), capacity));
    jobs.put(s.key, s);
    request(s, s.min, 1);
    int extra = Math.min(capacity, job.requestedGpus()) - s.min;
    if (extra > 0) {
      request(s, extra, 0);
    }
  }

  @Override
  public void finished(PolicyJob job, double now) {
    JobState s = jobs.remove(Long.toString(job.id()));
    if (s != null) {
      running.remove(s.key);
      // Its queued requests stay in the heap (which cannot remove one) but no longer count as demand.
      pendingGpus.get(job.user())[0] -= s.queued;
      pendingTotal -= s.queued;
      extrasHeld -= s.extra;
      int held = s.base + s.extra;
      if (held > 0) {
        heap.release(job.user(), held);
        used -= held;
      }
    }
  }

  @Override
  public void schedule(double now, Allocations out) {
    Map<JobState, Integer> before = new HashMap<>();
    // Only elastic extras can be taken back: with none held the planner has nothing to plan.
    if (pendingTotal > 0 && extrasHeld > 0 && someoneStarved()) {
      preempt(now, before);
    }
    while (used < capacity && pendingTotal > 0) {
      List<Placement> placed = heap.allocate(List.of(new NodeState(NODE, capacity - used)));
      if (placed.isEmpty()) {
        break;
      }
      boolean stale = false;
      for (Placement p : placed) {
        PendingRequest r = p.request();
        JobState s = jobs.get(r.job());
        if (s == null) {
          // A finished job's queued extra: hand it straight back and allocate again.
          heap.release(r.user(), r.gpus());
          stale = true;
          continue;
        }
        pendingGpus.get(r.user())[0] -= r.gpus();
        pendingTotal -= r.gpus();
        s.queued -= r.gpus();
        before.putIfAbsent(s, s.base + s.extra);
        used += r.gpus();
        if (r.priority() == 1) {
          s.base += r.gpus();
        } else {
          s.extra += r.gpus();
          extrasHeld += r.gpus();
        }
        running.put(s.key, s);
      }
      if (!stale) {
        break;
      }
    }
    before.forEach((s, old) -> {
      int now2 = s.base + s.extra;
      if (now2 != old && now2 != s.job.gpus()) {
        out.set(s.job, now2);
      }
    });
  }

  private void preempt(double now, Map<JobState, Integer> before) {
    List<RunningContainer> containers = new ArrayList<>();
    long t = (long) (now * 1000);
    for (JobState s : running.values()) {
      long start = (long) (s.job.submitTime() * 1000);
      containers.add(new RunningContainer(s.key + "/min", s.key, s.job.user(), NODE, s.base, 1, start, false));
      if (s.extra > 0) {
        containers.add(new RunningContainer(s.key + "/extra", s.key, s.job.user(), NODE, s.extra, 0, start, true));
      }
    }
    PreemptionPlan plan = planner.plan(new ClusterSnapshot(t, weights,
        List.of(new NodeState(NODE, capacity - used)), containers, livePending()));
    for (RunningContainer v : plan.victims()) {
      JobState s = jobs.get(v.job());
      if (s == null || s.extra != v.gpus()) {
        continue;
      }
      before.putIfAbsent(s, s.base + s.extra);
      heap.release(s.job.user(), s.extra);
      used -= s.extra;
      extrasHeld -= s.extra;
      request(s, s.extra, 0);
      s.extra = 0;
      preemptedContainers++;
    }
  }

  /**
   * Cheap test before the planner: does a user with pending work hold less than it deserves, while
   * a user above its share holds elastic extras? Without both, the plan would be empty.
   */
  private boolean someoneStarved() {
    long demand = used + pendingTotal;
    if (demand <= capacity) {
      // Everyone's demand fits: the allocator alone serves it.
      return false;
    }
    Map<String, Long> held = new HashMap<>();
    for (JobState s : running.values()) {
      held.merge(s.job.user(), (long) (s.base + s.extra), Long::sum);
    }
    List<DeservedShares.Demand> demands = new ArrayList<>();
    pendingGpus.forEach((u, p) -> {
      long d = held.getOrDefault(u, 0L) + p[0];
      if (d > 0) {
        demands.add(new DeservedShares.Demand(u, weights.getOrDefault(u, 1.0), d));
      }
    });
    Map<String, Long> deserved = DeservedShares.compute(capacity, demands);
    boolean starved = false;
    for (var e : pendingGpus.entrySet()) {
      if (e.getValue()[0] > 0 && held.getOrDefault(e.getKey(), 0L) < deserved.getOrDefault(e.getKey(), 0L)) {
        starved = true;
        break;
      }
    }
    if (!starved) {
      return false;
    }
    // The planner takes only extras of users above their share: is there one to take?
    for (JobState s : running.values()) {
      String u = s.job.user();
      if (s.extra > 0 && held.getOrDefault(u, 0L) > deserved.getOrDefault(u, 0L)) {
        return true;
      }
    }
    return false;
  }

  private List<PendingRequest> livePending() {
    List<PendingRequest> live = new ArrayList<>();
    for (PendingRequest r : heap.pending()) {
      if (jobs.containsKey(r.job())) {
        live.add(r);
      }
    }
    return live;
  }

  private void request(JobState s, int gpus, int priority) {
    String user = s.job.user();
    heap.add(new PendingRequest(s.key + "/" + (requestSeq++), user, s.key, priority,
        (long) (s.job.submitTime() * 1000), gpus));
    pendingGpus.computeIfAbsent(user, u -> new long[1])[0] += gpus;
    pendingTotal += gpus;
    s.queued += gpus;
  }
}
