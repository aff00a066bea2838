package org.edl.scheduler.rm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.scheduler.core.policy.PolicyJob;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.edl.scheduler.core.policy.TiresiasPolicy;

/**
 * Runs the simulator's {@link TiresiasPolicy} on the ResourceManager's applications, one round
 * per monitoring interval, and publishes its order ({@link TiresiasRanks}) for
 * {@link ElasticTiresiasPolicy}. The RM side only adapts: each application becomes a
 * {@link PolicyJob} whose attained service is what the RM itself counts (the application's
 * {@code yarn.io/gpu} resource-seconds), its size the GPUs it holds, its request those plus the
 * GPUs it asks for. The policy keeps its state (queues, arrivals) across rounds as it does across
 * the simulator's events; it is rebuilt when the cluster's GPUs change.
 */
final class TiresiasRanking {
  /** One application as the RM sees it at a round. */
  record AppFacts(ApplicationId id, String queue, double submitS, int gpusHeld, int gpusAsked,
      double attainedGpuSeconds) {}

  private final TiresiasParams params;
  private final Map<ApplicationId, Job> jobs = new HashMap<>();
  private TiresiasPolicy policy;
  private int capacity = -1;
  private long nextId;

  TiresiasRanking(TiresiasParams params) {
    this.params = params;
  }

  /** One round: the policy sees arrivals, departures and attained service, then decides. */
  Map<ApplicationId, TiresiasRanks.Rank> round(List<AppFacts> apps, int clusterGpus, double nowS) {
    if (clusterGpus != capacity || policy == null) {
      capacity = clusterGpus;
      policy = new TiresiasPolicy(Math.max(1, clusterGpus), params, true);
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
    List<PolicyJob> order = policy.ranked();
    for (int i = 0; i < order.size(); i++) {
      Job j = (Job) order.get(i);
      ranks.put(j.facts.id(), new TiresiasRanks.Rank(policy.queueOf(j), i));
    }
    return ranks;
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
      return Math.max(1, facts.gpusHeld() + facts.gpusAsked());
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

    /**
     * Linear: the RM has no throughput curves of its own yet, and only rule 4 (idle GPUs to the
     * largest gain) reads them, which the jobs' own growth carries out on YARN.
     */
    @Override
    public double speedup(int gpus) {
      return gpus;
    }
  }
}
