package org.edl.scheduler.sim;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.edl.scheduler.core.policy.TiresiasParams;

/**
 * Everything {@code edl simulate} takes; defaults in {@link #defaults}.
 *
 * @param trace Philly CSV or cluster_job_log JSON
 * @param profiles directory of {@code <model>/placements.csv}
 * @param policies among {@code fifo, tiresias, elastic-tiresias, fair}
 * @param out directory for the CSVs, charts and report
 * @param clusterGpus GPUs in the cluster
 * @param seed seed of the model drawn for each job
 * @param mechanism {@code edl} or {@code stop-resume}: what a scale operation costs
 * @param skipBad skip bad trace records (and count them) instead of stopping
 * @param checkInvariants check the invariants after every event
 * @param sampleS width of the report's time-series buckets, simulated seconds
 * @param tiresias queue limits, starvation knob, N, r, max factor
 * @param fairMinFraction r of the fair policy: a job's guaranteed share of what it asks for
 * @param weights fair-share weights by user
 * @param limitJobs use only the first this many jobs by submission (0: all)
 * @param progress draw a progress bar on stderr
 * @param intervalS decide in rounds of this many seconds; 0: at every event
 * @param startCostS seconds a job loses when it first starts; null: the mechanism's (0)
 * @param restartCostS seconds a job loses when it resumes after preemption; null: the mechanism's
 */
public record SimOptions(Path trace, Path profiles, List<String> policies, Path out, int clusterGpus, long seed,
    String mechanism, boolean skipBad, boolean checkInvariants, double sampleS, TiresiasParams tiresias,
    double fairMinFraction, Map<String, Double> weights, int limitJobs, boolean progress, double intervalS,
    Double startCostS, Double restartCostS) {
  public static final List<String> POLICIES = List.of("fifo", "tiresias", "elastic-tiresias", "fair");
  /** Philly's GPUs: 321 machines x 2 + 231 x 8 in the public trace's cluster_machine_list. */
  public static final int PHILLY_GPUS = 2490;

  /** Event-driven, with the mechanism's start and restart costs. */
  public SimOptions(Path trace, Path profiles, List<String> policies, Path out, int clusterGpus, long seed,
      String mechanism, boolean skipBad, boolean checkInvariants, double sampleS, TiresiasParams tiresias,
      double fairMinFraction, Map<String, Double> weights, int limitJobs, boolean progress) {
    this(trace, profiles, policies, out, clusterGpus, seed, mechanism, skipBad, checkInvariants, sampleS, tiresias,
        fairMinFraction, weights, limitJobs, progress, 0, null, null);
  }

  /** What a scale operation, a first start and a resume cost in this run. */
  public ScaleCosts costs() {
    return ScaleCosts.measured(mechanism).withStartAndRestart(startCostS, restartCostS);
  }

  public SimOptions {
    policies = List.copyOf(policies);
    weights = Map.copyOf(weights);
    for (String p : policies) {
      if (!POLICIES.contains(p)) {
        throw new IllegalArgumentException("policy '" + p + "': expected one of " + String.join(", ", POLICIES));
      }
    }
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("policy '': name at least one of " + String.join(", ", POLICIES));
    }
    if (clusterGpus <= 0) {
      throw new IllegalArgumentException("cluster-gpus " + clusterGpus + ": must be > 0");
    }
    if (limitJobs < 0) {
      throw new IllegalArgumentException("limit-jobs " + limitJobs + ": must be >= 0");
    }
    ScaleCosts.measured(mechanism);
  }

  public static SimOptions defaults(Path trace, Path profiles, Path out) {
    return new SimOptions(trace, profiles, POLICIES, out, PHILLY_GPUS, 1, "edl", false, false, 3600,
        TiresiasParams.DEFAULT, 0.5, Map.of(), 0, true);
  }
}
