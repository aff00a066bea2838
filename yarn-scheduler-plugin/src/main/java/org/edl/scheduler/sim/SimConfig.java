package org.edl.scheduler.sim;

/**
 * One run's settings besides the policy.
 *
 * @param clusterGpus GPUs in the cluster (a pool; jobs larger than it are cut to it)
 * @param seed seed of the model drawn for each job whose trace names none
 * @param costs what a scale operation and a resume cost
 * @param checkInvariants check {@link InvariantChecker} after every event (slower)
 * @param sampleS width of the buckets of the time series in the report, simulated seconds
 * @param intervalS the policy decides at multiples of this many seconds only (rounds, as
 *     Tiresias' own simulator schedules); 0: at every event (the default)
 */
public record SimConfig(int clusterGpus, long seed, ScaleCosts costs, boolean checkInvariants, double sampleS,
    double intervalS) {
  /** Event-driven. */
  public SimConfig(int clusterGpus, long seed, ScaleCosts costs, boolean checkInvariants, double sampleS) {
    this(clusterGpus, seed, costs, checkInvariants, sampleS, 0);
  }

  public SimConfig {
    if (!(intervalS >= 0)) {
      throw new IllegalArgumentException("scheduling interval " + intervalS + " < 0");
    }
    if (clusterGpus <= 0) {
      throw new IllegalArgumentException("cluster GPUs " + clusterGpus + " <= 0");
    }
    if (!(sampleS > 0)) {
      throw new IllegalArgumentException("sample interval " + sampleS + " <= 0");
    }
  }
}
