package org.edl.scheduler.rm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.scheduler.core.fair.RunningContainer;
import org.edl.scheduler.core.policy.PolicyJob;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.edl.scheduler.core.policy.TiresiasPolicy;

/**
 * Runs the simulator's {@link TiresiasPolicy} on the ResourceManager's applications, one round
 * per monitoring interval: its order goes to {@link ElasticTiresiasPolicy} (through
 * {@link TiresiasRanks}), its targets become preemption victims ({@link #victims}). The RM side
 * only adapts: each application becomes a {@link PolicyJob} whose attained service is what the
 * RM itself counts (the application's {@code yarn.io/gpu} resource-seconds), its size the GPUs it
 * holds, its request what it holds and asks for up to its {@code edl-gpus} tag, its speed-up the
 * curve its AM publishes or the {@code edl-speedup} tag ({@link SpeedupCurve}; linear without
 * one). Rule 4's hand-out of idle GPUs reaches the scheduler through the order: an application
 * under its request, then one the round grows, sort before every one that holds its share
 * ({@link TiresiasRanks.Rank}). A job of one size that the walk passes over is paused
 * ({@link Round#paused}); an elastic one keeps its floor, as the policy knows
 * ({@link TiresiasParams#floorsKept}), since its tag's minimum is never preempted. The policy keeps its state (queues, arrivals) across rounds as it does
 * across the simulator's events; it is rebuilt when the cluster's GPUs change.
 */
final class TiresiasRanking {
  /**
   * One application as the RM sees it at a round.
   *
   * @param gpusRequested its request: what it holds plus what it asks for now, at most its
   *     {@code edl-gpus} tag (an EDL job's workers x GPUs)
   * @param speedup its throughput curve, as its AM publishes it or else from its {@code edl-speedup}
   *     tag; null: linear
   * @param elastic whether it can run at another size than its request (see
   *     {@link PolicyJob#elastic}): not an EDL job whose tags say min = max
   * @param pausable whether, where Tiresias passes it over, it can be paused: an EDL job of one
   *     size answers a warning for all its containers by stopping with a checkpoint and asking
   *     again (an elastic one is only scaled in to its floor, an application without EDL's tags
   *     never preempted)
   * @param guaranteedGpus its {@code edl-min-gpus} tag (0 without one): the RM never takes it lower
   */
  record AppFacts(ApplicationId id, String queue, double submitS, int gpusHeld, int gpusRequested,
      double attainedGpuSeconds, SpeedupCurve speedup, boolean elastic, boolean pausable, int guaranteedGpus) {
    AppFacts(ApplicationId id, String queue, double submitS, int gpusHeld, int gpusRequested,
        double attainedGpuSeconds, SpeedupCurve speedup, boolean elastic, boolean pausable) {
      this(id, queue, submitS, gpusHeld, gpusRequested, attainedGpuSeconds, speedup, elastic, pausable, 0);
    }

    AppFacts(ApplicationId id, String queue, double submitS, int gpusHeld, int gpusRequested,
        double attainedGpuSeconds, SpeedupCurve speedup) {
      this(id, queue, submitS, gpusHeld, gpusRequested, attainedGpuSeconds, speedup, true, false);
    }

    AppFacts(ApplicationId id, String queue, double submitS, int gpusHeld, int gpusRequested,
        double attainedGpuSeconds) {
      this(id, queue, submitS, gpusHeld, gpusRequested, attainedGpuSeconds, null);
    }
  }

  /**
   * A round's decision: the order, the GPUs each application should hold (the policy's whole
   * decision, not its changes: a preemption still under its grace period is asked for again), and
   * the applications it pauses (pausable ones it gives nothing while they hold their request).
   */
  record Round(Map<ApplicationId, TiresiasRanks.Rank> ranks, Map<ApplicationId, Integer> targets,
      Set<ApplicationId> paused) {
    static final Round NONE = new Round(Map.of(), Map.of(), Set.of());
  }

  private final TiresiasParams params;
  private final Map<ApplicationId, Job> jobs = new HashMap<>();
  private TiresiasPolicy policy;
  private int capacity = -1;
  private long nextId;

  TiresiasRanking(TiresiasParams params) {
    this.params = params;
  }

  /** One round: the policy sees arrivals, departures and attained service, then decides. */
  Round round(List<AppFacts> apps, int clusterGpus, double nowS) {
    if (clusterGpus != capacity || policy == null) {
      capacity = clusterGpus;
      policy = new TiresiasPolicy(Math.max(1, clusterGpus), params.withFloorsKept(true), true);
      for (Job j : jobs.values()) {
        policy.arrived(j, nowS);
      }
    }
    Set<ApplicationId> present = new HashSet<>();
    for (AppFacts f : apps) {
      present.add(f.id());
      Job j = jobs.get(f.id());
      if (j == null) {
        j = new Job(nextId++, f);
        jobs.put(f.id(), j);
        policy.arrived(j, nowS);
      } else {
        j.facts = f;
      }
    }
    for (var it = jobs.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (!present.contains(e.getKey())) {
        policy.finished(e.getValue(), nowS);
        it.remove();
      }
    }
    for (Job j : jobs.values()) {
      policy.review(j, nowS);
    }
    policy.schedule(nowS, (job, gpus) -> { });
    Map<ApplicationId, TiresiasRanks.Rank> ranks = new HashMap<>();
    Map<ApplicationId, Integer> targets = new HashMap<>();
    Set<ApplicationId> paused = new HashSet<>();
    List<PolicyJob> order = policy.ranked();
    boolean askingAhead = false;
    for (int i = 0; i < order.size(); i++) {
      Job j = (Job) order.get(i);
      int target = policy.target(j);
      int held = j.facts.gpusHeld();
      int tier = held < j.requestedGpus() ? TiresiasRanks.Rank.UNDER_REQUEST
          : held < target ? TiresiasRanks.Rank.GROWING : TiresiasRanks.Rank.SERVED;
      ranks.put(j.facts.id(), new TiresiasRanks.Rank(tier, policy.queueOf(j), i));
      targets.put(j.facts.id(), target);
      // Only a job that holds its whole request runs: one still gathering its containers (after
      // a pause, say) keeps what it holds, since paused again it would only gather them anew.
      // And only for a job ahead that asks for GPUs now: a new application whose AM has not asked
      // yet counts in the walk, but a pause for it would hand the GPUs straight back.
      if (target == 0 && held > 0 && held >= j.requestedGpus() && j.facts.pausable() && askingAhead) {
        paused.add(j.facts.id());
      }
      askingAhead |= j.facts.gpusRequested() > held;
    }
    return new Round(ranks, targets, paused);
  }

  /**
   * The containers to take back so that each application comes down towards its target: its
   * elastic extras, newest first (the job scales them in when warned), and every container of an
   * application the round pauses (it stops with a checkpoint when warned and asks again). Nothing
   * else: a job is never taken below the minimum its tag guarantees except by a pause, and an
   * application without the tag (which can neither scale in nor pause) keeps everything, as in
   * the fair-share mode.
   */
  static List<RunningContainer> victims(List<RunningContainer> containers, Round round) {
    Map<String, Integer> held = new HashMap<>();
    Map<String, List<RunningContainer>> extras = new HashMap<>();
    List<RunningContainer> victims = new ArrayList<>();
    Set<String> paused = new HashSet<>();
    round.paused().forEach(id -> paused.add(id.toString()));
    for (RunningContainer c : containers) {
      held.merge(c.job(), c.gpus(), Integer::sum);
      if (paused.contains(c.job())) {
        victims.add(c);
      } else if (c.elasticExtra()) {
        extras.computeIfAbsent(c.job(), k -> new ArrayList<>()).add(c);
      }
    }
    for (Map.Entry<ApplicationId, Integer> t : round.targets().entrySet()) {
      String job = t.getKey().toString();
      int over = held.getOrDefault(job, 0) - t.getValue();
      List<RunningContainer> candidates = extras.get(job);
      if (over <= 0 || candidates == null) {
        continue;
      }
      candidates.sort(Comparator.comparingLong(RunningContainer::startTime).thenComparing(RunningContainer::id)
          .reversed());
      for (RunningContainer c : candidates) {
        if (over <= 0) {
          break;
        }
        victims.add(c);
        over -= c.gpus();
      }
    }
    victims.sort(Comparator.comparing(RunningContainer::id));
    return victims;
  }

  /** Each queue's best-ranked application: where its user goes in the parent's order. */
  static Map<String, TiresiasRanks.Rank> bestPerQueue(List<AppFacts> apps, Map<ApplicationId, TiresiasRanks.Rank> ranks) {
    Map<String, TiresiasRanks.Rank> best = new HashMap<>();
    for (AppFacts f : apps) {
      TiresiasRanks.Rank r = ranks.get(f.id());
      if (r != null) {
        best.merge(f.queue(), r, (a, b) -> a.compareTo(b) <= 0 ? a : b);
      }
    }
    return best;
  }

  /** The order in the policy's own terms, for tests and the log. */
  List<ApplicationId> order() {
    List<ApplicationId> ids = new ArrayList<>();
    for (PolicyJob j : policy == null ? List.<PolicyJob>of() : policy.ranked()) {
      ids.add(((Job) j).facts.id());
    }
    return ids;
  }

  private static final class Job implements PolicyJob {
    private final long id;
    private AppFacts facts;

    Job(long id, AppFacts facts) {
      this.id = id;
      this.facts = facts;
    }

    @Override
    public long id() {
      return id;
    }

    @Override
    public String user() {
      return facts.queue();
    }

    @Override
    public int requestedGpus() {
      return Math.max(1, facts.gpusRequested());
    }

    @Override
    public int guaranteedGpus() {
      return facts.guaranteedGpus();
    }

    @Override
    public double submitTime() {
      return facts.submitS();
    }

    @Override
    public int gpus() {
      return facts.gpusHeld();
    }

    @Override
    public double attainedGpuSeconds(double now) {
      return facts.attainedGpuSeconds();
    }

    /** Only for starvation promotion, which the RM mode leaves off (knob 0). */
    @Override
    public double executedSeconds(double now) {
      return 0;
    }

    @Override
    public double lastStoppedAt() {
      return facts.submitS();
    }

    /** The job's tagged curve (read by rule 4, idle GPUs to the largest gain); linear without one. */
    @Override
    public double speedup(int gpus) {
      return facts.speedup() == null ? gpus : facts.speedup().at(gpus);
    }

    @Override
    public boolean elastic() {
      return facts.elastic();
    }
  }
}
