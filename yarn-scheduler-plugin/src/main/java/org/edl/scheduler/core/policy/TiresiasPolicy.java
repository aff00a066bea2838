package org.edl.scheduler.core.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * Tiresias' discretized two-dimensional least-attained-service (Gu et al., "Tiresias: A GPU Cluster
 * Manager for Distributed Deep Learning", NSDI 2019), and (with {@code elastic}) this project's
 * reading of Elastic-Tiresias from the EDL paper (Wu et al., "Elastic Deep Learning in Multi-Tenant
 * GPU Clusters", arXiv:1909.11985). Rules 3 and 4 below are the two it adds to the Tiresias walk;
 * the code, its tests and the docs refer to them by those numbers.
 *
 * <p>Jobs are ordered by queue (attained GPU-seconds against the queue limits), then by arrival.
 * Every decision walks that order and gives each job its requested GPUs while they fit; a job
 * that does not fit is passed over and the walk goes on (jobs of lower priority that fit may
 * run), and a running job that is not reached is preempted. Elastic-Tiresias then: (3) while more
 * than N jobs wait, takes the waiting jobs in that order and starts each (at most at its request,
 * at least at {@code ceil(r x requested)}) on the free GPUs plus what shrinking running jobs to
 * their minimum frees, lowest priority first, where the jobs that may be shrunk are those in the
 * queues below the top one and any of lower priority than the waiting job (see
 * {@code shrinkable}); if even that would not start it, nothing is shrunk and rule 3 stops; (4) gives
 * idle GPUs one at a time to the running job whose speed-up grows most (relative to its speed at
 * the requested size), up to its maximum, while it grows at all. With a resize hold
 * ({@link TiresiasParams#resizeHoldS()}), a running job started or resized less than that long
 * ago keeps its size through (3) and (4) and the walk where that size still fits: without one
 * the decision, recomputed at every event, resized a scaled job about 54 times on the Philly trace.
 * With {@link TiresiasParams#floorsKept} (the ResourceManager's rule), a running elastic job that
 * the walk passes over keeps its floor instead of being preempted.
 */
public final class TiresiasPolicy implements ClusterPolicy {
  private static final class Entry {
    final PolicyJob job;
    int queue;
    double serviceOffset;
    int target;
    long stamp;
    double gain;
    /** When it last started or changed size; with {@code held} (hysteresis) it keeps that size. */
    double resizedAt = Double.NEGATIVE_INFINITY;
    boolean held;

    Entry(PolicyJob job) {
      this.job = job;
    }
  }

  private final int capacity;
  private final TiresiasParams params;
  private final boolean elastic;
  private final Map<Long, Entry> entries = new HashMap<>();
  private final Comparator<Entry> priority = (a, b) -> {
    if (a.queue != b.queue) {
      return a.queue < b.queue ? -1 : 1;
    }
    int c = Double.compare(a.job.submitTime(), b.job.submitTime());
    return c != 0 ? c : Long.compare(a.job.id(), b.job.id());
  };
  private final Comparator<Entry> byGainThenPriority = (a, b) -> {
    int c = Double.compare(b.gain, a.gain);
    return c != 0 ? c : priority.compare(a, b);
  };
  private final TreeSet<Entry> order = new TreeSet<>(priority);
  private List<Entry> running = new ArrayList<>();
  private long stamp;

  public TiresiasPolicy(int capacityGpus, TiresiasParams params, boolean elastic) {
    this.capacity = capacityGpus;
    this.params = params;
    this.elastic = elastic;
  }

  @Override
  public String name() {
    return elastic ? "elastic-tiresias" : "tiresias";
  }

  @Override
  public int minGpus(PolicyJob job) {
    if (!elastic || !job.elastic()) {
      return job.requestedGpus();
    }
    int byFraction = (int) Math.ceil(params.minFraction() * job.requestedGpus() - 1e-9);
    return Math.max(byFraction, Math.min(job.guaranteedGpus(), job.requestedGpus()));
  }

  @Override
  public int maxGpus(PolicyJob job) {
    return elastic && job.elastic()
        ? Math.min(capacity, (int) Math.floor(params.maxFactor() * job.requestedGpus() + 1e-9))
        : job.requestedGpus();
  }

  /** The job's queue now, for tests and reports; -1 if the policy does not know it. */
  public int queueOf(PolicyJob job) {
    Entry e = entries.get(job.id());
    return e == null ? -1 : e.queue;
  }

  /**
   * Every job the policy knows, highest priority first (the order its walk gives GPUs in): what a
   * runner that cannot apply decisions at once (the ResourceManager, whose scheduler hands out
   * containers as nodes report in) orders applications by.
   */
  public List<PolicyJob> ranked() {
    List<PolicyJob> jobs = new ArrayList<>(order.size());
    for (Entry e : order) {
      jobs.add(e.job);
    }
    return jobs;
  }

  /** The GPUs the last {@link #schedule} gave the job: its whole decision, not only the change. */
  public int target(PolicyJob job) {
    Entry e = entries.get(job.id());
    return e == null || e.stamp != stamp ? 0 : e.target;
  }

  @Override
  public void arrived(PolicyJob job, double now) {
    Entry e = new Entry(job);
    e.queue = params.queueOf(job.attainedGpuSeconds(now));
    entries.put(job.id(), e);
    order.add(e);
  }

  @Override
  public void finished(PolicyJob job, double now) {
    Entry e = entries.remove(job.id());
    if (e != null) {
      order.remove(e);
      e.target = 0;
    }
  }

  @Override
  public double nextReview(PolicyJob job, double now) {
    Entry e = entries.get(job.id());
    if (e == null) {
      return Double.POSITIVE_INFINITY;
    }
    if (job.gpus() > 0) {
      // A held job is looked at again when its hold ends, so that it can be resized then.
      double holdEnds = elastic && e.resizedAt + params.resizeHoldS() > now
          ? e.resizedAt + params.resizeHoldS() : Double.POSITIVE_INFINITY;
      double limit = params.limit(e.queue);
      if (Double.isInfinite(limit)) {
        return holdEnds;
      }
      double service = job.attainedGpuSeconds(now) - e.serviceOffset;
      return Math.min(holdEnds, now + Math.max(0, limit - service) / job.gpus());
    }
    if (params.starvationKnob() > 0 && e.queue > 0) {
      return job.lastStoppedAt() + job.executedSeconds(now) * params.starvationKnob();
    }
    return Double.POSITIVE_INFINITY;
  }

  @Override
  public void review(PolicyJob job, double now) {
    Entry e = entries.get(job.id());
    if (e == null) {
      return;
    }
    int q;
    if (job.gpus() == 0 && params.starvationKnob() > 0 && e.queue > 0
        && now - job.lastStoppedAt() >= job.executedSeconds(now) * params.starvationKnob() - 1e-9) {
      // Promoted: its service counts afresh from here, as if it had just arrived.
      e.serviceOffset = job.attainedGpuSeconds(now);
      q = 0;
    } else {
      q = params.queueOf(job.attainedGpuSeconds(now) - e.serviceOffset + 1e-6);
    }
    if (q != e.queue) {
      order.remove(e);
      e.queue = q;
      order.add(e);
    }
  }

  @Override
  public void schedule(double now, Allocations out) {
    stamp++;
    int free = capacity;
    List<Entry> given = new ArrayList<>();
    List<Entry> passed = new ArrayList<>();
    Iterator<Entry> it = order.iterator();
    while (free > 0 && it.hasNext()) {
      Entry e = it.next();
      e.held = elastic && e.job.gpus() > 0 && now - e.resizedAt < params.resizeHoldS();
      int want = e.held ? e.job.gpus() : Math.min(capacity, e.job.requestedGpus());
      if (e.held && want > free) {
        // A hold must not cost a job more than a resize would: where its size does not fit, it
        // is treated as it would be without one.
        e.held = false;
        want = Math.min(capacity, e.job.requestedGpus());
      }
      if (want <= free) {
        e.target = want;
        e.stamp = stamp;
        free -= want;
        given.add(e);
      } else if (elastic) {
        passed.add(e);
      }
    }
    if (elastic) {
      free = shrinkForWaiting(given, passed, it, free);
      if (params.floorsKept()) {
        free = keepFloors(given, free);
      }
      growIntoIdle(given, free);
    }
    for (Entry r : running) {
      if (r.stamp != stamp && entries.containsKey(r.job.id())) {
        r.target = 0;
        out.set(r.job, 0);
      }
    }
    for (Entry g : given) {
      if (g.job.gpus() != g.target) {
        out.set(g.job, g.target);
        g.resizedAt = now;
      }
    }
    running = given;
  }

  /** Rule 3; returns the GPUs still free. Jobs it starts are appended to {@code given}. */
  private int shrinkForWaiting(List<Entry> given, List<Entry> passed, Iterator<Entry> rest, int free) {
    int waiting = order.size() - given.size();
    int victim = given.size() - 1;
    int ranBefore = given.size();
    Iterator<Entry> firstPassed = passed.iterator();
    while (waiting > params.waitingThreshold()) {
      Entry w = firstPassed.hasNext() ? firstPassed.next() : rest.hasNext() ? rest.next() : null;
      if (w == null) {
        break;
      }
      int need = minGpus(w.job);
      int v = victim;
      int freed = free;
      while (freed < need && v >= 0) {
        Entry e = given.get(v--);
        if (shrinkable(e, w)) {
          freed += e.target - minGpus(e.job);
        }
      }
      if (freed < need) {
        // Shrinking every job it may take from would not start it: leave them as they are.
        break;
      }
      for (; victim > v; victim--) {
        Entry e = given.get(victim);
        if (shrinkable(e, w)) {
          e.target = minGpus(e.job);
        }
      }
      free = freed;
      w.target = Math.min(Math.min(capacity, w.job.requestedGpus()), free);
      w.stamp = stamp;
      free -= w.target;
      given.add(w);
      waiting--;
    }
    if (given.size() > ranBefore) {
      given.sort(priority);
    }
    return free;
  }

  /**
   * Rule 3's victims for waiting job {@code w}: running jobs in the lower-priority queues (below
   * the top one), whatever their order against {@code w}, and any job of lower priority than it.
   * Jobs that a waiting one could pass in the walk are those of its own or a higher queue, so
   * without the first clause rule 3 would almost never find a victim.
   */
  private boolean shrinkable(Entry e, Entry w) {
    return !e.held && (e.queue > 0 || priority.compare(e, w) > 0);
  }

  /**
   * With {@link TiresiasParams#floorsKept}: every running elastic job the walk passed over keeps
   * its floor, and what that takes beyond the free GPUs comes back from the jobs given GPUs,
   * lowest priority first: an elastic one down to its floor, then a job that may lose all of its
   * GPUs (one of one size, or one not started yet) entirely. Returns the GPUs still free. The
   * floors always fit: they are at most what their jobs hold.
   */
  private int keepFloors(List<Entry> given, int free) {
    List<Entry> keepers = new ArrayList<>();
    int kept = 0;
    for (Entry e : order) {
      int floor = keptFloor(e);
      if (e.stamp != stamp && floor > 0) {
        e.target = floor;
        e.stamp = stamp;
        keepers.add(e);
        kept += floor;
      }
    }
    int cut = kept - free;
    for (int i = given.size() - 1; i >= 0 && cut > 0; i--) {
      Entry e = given.get(i);
      int floor = keptFloor(e);
      int low = floor > 0 ? floor : e.job.elastic() ? Math.min(e.target, minGpus(e.job)) : 0;
      int take = Math.min(cut, e.target - low);
      e.target -= take;
      cut -= take;
      if (cut > 0 && floor == 0) {
        cut -= e.target;
        e.target = 0;
        e.stamp = 0; // not given: target() reads 0, and a job that ran is preempted below
        given.remove(i);
      }
    }
    given.addAll(keepers);
    given.sort(priority);
    return Math.max(0, -cut);
  }

  /**
   * The GPUs a running elastic job keeps whatever the walk decides ({@link TiresiasParams#floorsKept}):
   * its floor, or what it holds if less (one still gathering its containers).
   */
  private int keptFloor(Entry e) {
    return e.job.elastic() && e.job.gpus() > 0 ? Math.min(minGpus(e.job), e.job.gpus()) : 0;
  }

  /** Rule 4: idle GPUs to the largest relative gain in speed, one at a time. */
  private void growIntoIdle(List<Entry> given, int free) {
    if (free <= 0 || given.isEmpty()) {
      return;
    }
    PriorityQueue<Entry> byGain = new PriorityQueue<>(byGainThenPriority);
    for (Entry e : given) {
      e.gain = gain(e);
      if (!e.held && e.target < maxGpus(e.job) && e.gain > 0) {
        byGain.add(e);
      }
    }
    while (free > 0 && !byGain.isEmpty()) {
      Entry e = byGain.poll();
      e.target++;
      free--;
      e.gain = gain(e);
      if (e.target < maxGpus(e.job) && e.gain > 0) {
        byGain.add(e);
      }
    }
  }

  private double gain(Entry e) {
    PolicyJob j = e.job;
    return (j.speedup(e.target + 1) - j.speedup(e.target)) / j.speedup(j.requestedGpus());
  }
}
