package org.edl.am;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.edl.thrift.JobProgress;

/**
 * The throughput a job showed at each ring size it has run, measured from the leader's progress
 * reports: between the first report of a ring (same leader epoch, same topology version) and one
 * at least {@link #MIN_STEPS} steps and {@link #MIN_SECONDS} later, samples trained over the
 * leader's seconds. Every step between two reports of one ring ran at that ring's size, so a
 * switch never blurs two sizes into one figure. A size's throughput is all its windows together
 * (their samples over their seconds): one window on a shared machine is noisy. A profile ({@code edl profile}) runs every
 * size long enough to be measured here, so it fills the curve at once. Main thread only.
 */
public final class MeasuredThroughput implements ThroughputCurve {
  static final long MIN_STEPS = 10;
  static final double MIN_SECONDS = 2.0;
  /** Windows at a size before its figure may undo a growth: the first one holds the newcomer's cold start. */
  static final int SETTLED_WINDOWS = 3;

  /** Size -> {samples, seconds, windows} over every window measured at it. */
  private final Map<Integer, double[]> bySize = new TreeMap<>();
  private JobProgress anchor;

  public void onProgress(JobProgress p) {
    if (!p.isSetSamplesSeen() || !p.isSetLeaderSeconds() || p.getWorkers() < 1) {
      return;
    }
    if (anchor == null || !sameRing(anchor, p) || p.getSamplesSeen() < anchor.getSamplesSeen()) {
      anchor = p;
      return;
    }
    long steps = p.getStep() - anchor.getStep();
    double seconds = p.getLeaderSeconds() - anchor.getLeaderSeconds();
    if (steps >= MIN_STEPS && seconds >= MIN_SECONDS) {
      double[] sum = bySize.computeIfAbsent(p.getWorkers(), n -> new double[3]);
      sum[0] += p.getSamplesSeen() - anchor.getSamplesSeen();
      sum[1] += seconds;
      sum[2]++;
      anchor = p;
    }
  }

  private static boolean sameRing(JobProgress a, JobProgress b) {
    return a.getWorkers() == b.getWorkers() && a.getLeaderEpoch() == b.getLeaderEpoch()
        && a.getTopologyVersion() == b.getTopologyVersion();
  }

  @Override
  public OptionalDouble at(int workers) {
    double[] sum = bySize.get(workers);
    return sum == null ? OptionalDouble.empty() : OptionalDouble.of(sum[0] / sum[1]);
  }

  @Override
  public boolean settled(int workers) {
    double[] sum = bySize.get(workers);
    return sum != null && sum[2] >= SETTLED_WINDOWS;
  }
}
