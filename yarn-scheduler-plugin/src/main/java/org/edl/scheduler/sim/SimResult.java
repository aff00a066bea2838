package org.edl.scheduler.sim;

import java.util.Arrays;
import java.util.List;

/**
 * What one policy did with one trace: each job's times and the cluster's time series.
 * Times are simulated seconds from the first submission.
 */
public record SimResult(String policy, int clusterGpus, String mechanism, List<SimJobResult> jobs, double[] seriesTime,
    double[] seriesUtilisation, double[] seriesEfficiency, List<String> users, double[][] seriesUserGpus, long events,
    double makespanS, double meanUtilisation, double meanEfficiency, double wallS, int clampedJobs) {

  /** One finished job. */
  public record SimJobResult(long id, String user, String model, int gpus, double submitS, double startS,
      double finishS, int scaleOps, int preemptions) {
    public double jctS() {
      return finishS - submitS;
    }
  }

  public double[] sortedJct() {
    double[] jct = new double[jobs.size()];
    for (int i = 0; i < jct.length; i++) {
      jct[i] = jobs.get(i).jctS();
    }
    Arrays.sort(jct);
    return jct;
  }

  public double averageJct() {
    double sum = 0;
    for (SimJobResult j : jobs) {
      sum += j.jctS();
    }
    return jobs.isEmpty() ? 0 : sum / jobs.size();
  }

  /** The q-quantile (nearest rank) of a sorted array. */
  public static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
  }
}
