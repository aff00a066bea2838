package org.edl.scheduler.sim;

/**
 * One run's settings besides the policy.
 *
 * @param clusterGpus GPUs in the cluster (a pool; jobs larger than it are cut to it)
 * @param seed seed of the model drawn for each job whose trace names none
 * @param costs what a scale operation and a resume cost
 * @param checkInvariants check {@link InvariantChecker} after every event (slower)
 * @param sampleS width of the buckets of the time series in the report, simulated seconds
 */
public record SimConfig(int clusterGpus, long seed, ScaleCosts costs, boolean checkInvariants, double sampleS) {
  public SimConfig {
    if (clusterGpus <= 0) {
      throw new IllegalArgumentException("cluster GPUs " + clusterGpus + " <= 0");
    }
    if (!(sampleS > 0)) {
      throw new IllegalArgumentException("sample interval " + sampleS + " <= 0");
    }
  }
}
