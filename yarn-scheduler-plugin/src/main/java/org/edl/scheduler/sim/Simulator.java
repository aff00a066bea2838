package org.edl.scheduler.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.edl.scheduler.core.policy.ClusterPolicy;
import org.edl.scheduler.core.policy.PolicyJob;

/**
 * The discrete-event engine: arrivals from the trace, completions and policy reviews from a
 * priority queue, a simulated clock handed to the policy. All events at one instant are taken
 * together, then the policy decides once and its decisions are applied (shrinks first, so GPU ids
 * freed are there to give). Only jobs whose allocation changes are touched, so a decision costs
 * what the policy's walk costs, not the number of jobs in the trace.
 */
public final class Simulator {
  private static final int COMPLETE = 0;
  private static final int REVIEW = 1;

  private record Event(double time, int kind, SimJob job, int version, long seq) {}

  private final Trace trace;
  private final ThroughputModel[] models;
  private final ClusterPolicy policy;
  private final SimConfig cfg;
  private final ProgressBar progress;

  private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> {
    int c = Double.compare(a.time, b.time);
    return c != 0 ? c : Long.compare(a.seq, b.seq);
  });
  private long seq;
  private final int[] freeGpus;
  private int freeCount;
  private int busy;
  private double sumSpeedup;
  /**
   * Running jobs that may still be paused (starting, restarting, or in a scale operation's
   * pause): cluster efficiency counts useful work, so their speed-up does not count until the
   * pause ends, though they hold their GPUs.
   */
  private final LinkedHashSet<SimJob> paused = new LinkedHashSet<>();
  private final LinkedHashSet<SimJob> running = new LinkedHashSet<>();
  private final List<String> users = new ArrayList<>();
  private int[] userGpus;
  private final Map<PolicyJob, Integer> decisions = new java.util.LinkedHashMap<>();
  private final List<SimJob> changed = new ArrayList<>();

  // Time series: one bucket per sampleS of simulated time, integrals divided at the end.
  private double lastT;
  private final List<double[]> buckets = new ArrayList<>();
  private double utilIntegral;
  private double effIntegral;

  public Simulator(Trace trace, ThroughputModel[] models, ClusterPolicy policy, SimConfig cfg, ProgressBar progress) {
    this.trace = trace;
    this.models = models;
    this.policy = policy;
    this.cfg = cfg;
    this.progress = progress;
    this.freeGpus = new int[cfg.clusterGpus()];
    for (int i = 0; i < freeGpus.length; i++) {
      freeGpus[i] = freeGpus.length - 1 - i;
    }
    this.freeCount = freeGpus.length;
  }

  public SimResult run() {
    long wallStart = System.nanoTime();
    List<TraceJob> tj = trace.jobs();
    int n = tj.size();
    SimJob[] jobs = new SimJob[n];
    Map<String, Integer> userIndex = new HashMap<>();
    long t0 = n == 0 ? 0 : tj.get(0).submitEpochS();
    int clamped = 0;
    for (int i = 0; i < n; i++) {
      TraceJob j = tj.get(i);
      int u = userIndex.computeIfAbsent(j.user(), k -> {
        users.add(k);
        return users.size() - 1;
      });
      int req = j.gpus();
      if (req > cfg.clusterGpus()) {
        req = cfg.clusterGpus();
        clamped++;
      }
      jobs[i] = new SimJob(i, j, u, models[i], req, j.submitEpochS() - t0);
    }
    userGpus = new int[users.size()];
    InvariantChecker checker = cfg.checkInvariants() ? new InvariantChecker(cfg.clusterGpus()) : null;
    List<SimResult.SimJobResult> results = new ArrayList<>(n);
    int next = 0;
    long eventCount = 0;
    int finished = 0;
    double interval = cfg.intervalS();
    double nextRound = 0;
    while (true) {
      // Stale events go before the clock moves: a review left behind by a job that has since
      // finished or changed would otherwise carry the clock (and the makespan) past the last job.
      while (!events.isEmpty() && stale(events.peek())) {
        events.poll();
      }
      boolean roundsDue = interval > 0 && finished < n;
      if (next >= n && events.isEmpty() && !roundsDue) {
        break;
      }
      double t = Math.min(Math.min(next < n ? jobs[next].submit : Double.POSITIVE_INFINITY,
          events.isEmpty() ? Double.POSITIVE_INFINITY : events.peek().time),
          roundsDue ? nextRound : Double.POSITIVE_INFINITY);
      integrateTo(t);
      while (next < n && jobs[next].submit <= t) {
        SimJob j = jobs[next++];
        j.arrived = true;
        policy.arrived(j, t);
        eventCount++;
      }
      while (!events.isEmpty() && events.peek().time <= t) {
        Event e = events.poll();
        SimJob j = e.job;
        if (stale(e)) {
          continue;
        }
        eventCount++;
        if (e.kind == COMPLETE) {
          j.advance(t);
          j.done = j.totalWork;
          release(j, 0);
          j.finish = t;
          j.version++;
          policy.finished(j, t);
          finished++;
          if (checker != null) {
            checker.checkFinished(t, j, policy);
          }
          results.add(new SimResult.SimJobResult(j.index, j.trace.user(), j.model.name(), j.requested, j.submit,
              j.start, j.finish, j.scaleOps, j.preemptions));
        } else {
          j.advance(t);
          policy.review(j, t);
          pushReview(j, t);
        }
      }
      if (interval == 0) {
        decide(t);
      } else if (t >= nextRound) {
        decide(t);
        nextRound = (Math.floor(t / interval) + 1) * interval;
      }
      if (checker != null) {
        checker.check(t, running, busy, freeCount, policy);
      }
      if (progress != null) {
        progress.update(finished, t / 86400);
      }
    }
    if (progress != null) {
      progress.update(n, lastT / 86400);
    }
    double makespan = lastT;
    int nb = buckets.size();
    double[] time = new double[nb];
    double[] util = new double[nb];
    double[] eff = new double[nb];
    double[][] perUser = new double[users.size()][nb];
    for (int b = 0; b < nb; b++) {
      double[] k = buckets.get(b);
      double width = Math.min(cfg.sampleS(), Math.max(1e-9, makespan - b * cfg.sampleS()));
      time[b] = b * cfg.sampleS();
      util[b] = k[0] / width / cfg.clusterGpus();
      eff[b] = k[1] / width / cfg.clusterGpus();
      for (int u = 0; u < users.size(); u++) {
        perUser[u][b] = k[2 + u] / width;
      }
    }
    results.sort((a, b) -> Long.compare(a.id(), b.id()));
    double denom = Math.max(1e-9, makespan) * cfg.clusterGpus();
    return new SimResult(policy.name(), cfg.clusterGpus(), cfg.costs().mechanism(), results, time, util, eff,
        List.copyOf(users), perUser, eventCount, makespan, utilIntegral / denom, effIntegral / denom,
        (System.nanoTime() - wallStart) / 1e9, clamped);
  }

  private void decide(double t) {
    decisions.clear();
    policy.schedule(t, (job, gpus) -> decisions.put(job, gpus));
    if (decisions.isEmpty()) {
      return;
    }
    changed.clear();
    // Shrinks first, so that their GPUs are free for the growths decided at the same instant.
    for (Map.Entry<PolicyJob, Integer> d : decisions.entrySet()) {
      SimJob j = (SimJob) d.getKey();
      if (d.getValue() < j.gpus) {
        change(j, d.getValue(), t);
      }
    }
    for (Map.Entry<PolicyJob, Integer> d : decisions.entrySet()) {
      SimJob j = (SimJob) d.getKey();
      if (d.getValue() > j.gpus) {
        change(j, d.getValue(), t);
      }
    }
    for (SimJob j : changed) {
      pushReview(j, t);
    }
  }

  private void change(SimJob j, int to, double t) {
    if (j.finish >= 0 || !j.arrived) {
      throw new IllegalStateException(policy.name() + " gave " + to + " GPUs to " + j + ", which is not waiting or running");
    }
    j.advance(t);
    int from = j.gpus;
    if (from > 0 && to > 0) {
      j.scaleOps++;
      j.pauseUntil = Math.max(j.pauseUntil, t)
          + cfg.costs().pause(from, to, j.model.speedup(from), j.model.speedup(to));
    } else if (from == 0 && to > 0) {
      if (j.start < 0) {
        j.start = t;
        j.pauseUntil = t + cfg.costs().startS();
      } else {
        j.pauseUntil = t + cfg.costs().restartS();
      }
    } else if (to == 0) {
      j.preemptions++;
      j.lastStopped = t;
    }
    release(j, to);
    if (to > 0 && j.pauseUntil > t) {
      paused.add(j);
    }
    if (to > from) {
      if (to - from > freeCount) {
        throw new IllegalStateException(policy.name() + " gave " + to + " GPUs to " + j + " with " + freeCount + " free");
      }
      int[] held = Arrays.copyOf(j.held, to);
      for (int i = from; i < to; i++) {
        held[i] = freeGpus[--freeCount];
      }
      j.held = held;
      account(j, from, to);
    }
    j.version++;
    if (to > 0) {
      push(j.completionTime(t), COMPLETE, j);
    }
    changed.add(j);
  }

  /** Takes the job down to {@code to} GPUs if it holds more, returning the rest to the free pool. */
  private void release(SimJob j, int to) {
    int from = j.gpus;
    if (to >= from) {
      return;
    }
    for (int i = to; i < from; i++) {
      freeGpus[freeCount++] = j.held[i];
    }
    j.held = Arrays.copyOf(j.held, to);
    account(j, from, to);
  }

  private void account(SimJob j, int from, int to) {
    busy += to - from;
    sumSpeedup += j.model.speedup(to) - j.model.speedup(from);
    userGpus[j.userIndex] += to - from;
    j.gpus = to;
    if (to > 0) {
      running.add(j);
    } else {
      running.remove(j);
    }
  }

  private void pushReview(SimJob j, double t) {
    double r = policy.nextReview(j, t);
    if (r < Double.POSITIVE_INFINITY) {
      push(Math.max(r, t), REVIEW, j);
    }
  }

  /** An event for a job that has finished, or whose state changed since the event was queued. */
  private static boolean stale(Event e) {
    return e.version != e.job.version || e.job.finish >= 0;
  }

  private void push(double time, int kind, SimJob j) {
    events.add(new Event(time, kind, j, j.version, seq++));
  }

  /** The paused jobs' speed-up x time within {@code [from, to)}; forgets pauses that have ended. */
  private double pausedSpeedupTime(double from, double to) {
    double lost = 0;
    for (var it = paused.iterator(); it.hasNext(); ) {
      SimJob j = it.next();
      if (j.gpus == 0 || j.finish >= 0 || j.pauseUntil <= from) {
        it.remove();
        continue;
      }
      lost += j.model.speedup(j.gpus) * (Math.min(to, j.pauseUntil) - from);
    }
    return lost;
  }

  private void integrateTo(double t) {
    double w = cfg.sampleS();
    while (lastT < t) {
      int b = (int) Math.floor(lastT / w);
      double edge = (b + 1) * w;
      if (edge <= lastT) {
        b++;
        edge = (b + 1) * w;
      }
      double end = Math.min(t, edge);
      double dt = end - lastT;
      while (buckets.size() <= b) {
        buckets.add(new double[2 + userGpus.length]);
      }
      double useful = sumSpeedup * dt - pausedSpeedupTime(lastT, end);
      double[] k = buckets.get(b);
      k[0] += busy * dt;
      k[1] += useful;
      for (int u = 0; u < userGpus.length; u++) {
        k[2 + u] += userGpus[u] * dt;
      }
      utilIntegral += busy * dt;
      effIntegral += useful;
      lastT = end;
    }
  }
}
