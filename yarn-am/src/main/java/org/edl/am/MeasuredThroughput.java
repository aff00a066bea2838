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
 * switch never blurs two sizes into one figure. The newest measurement at a size replaces the
 * older one: a shared cluster's throughput drifts. A profile ({@code edl profile}) runs every
 * size long enough to be measured here, so it fills the curve at once. Main thread only.
 */
public final class MeasuredThroughput implements ThroughputCurve {
  static final long MIN_STEPS = 10;
  static final double MIN_SECONDS = 2.0;

  private final Map<Integer, Double> bySize = new TreeMap<>();
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
      bySize.put(p.getWorkers(), (p.getSamplesSeen() - anchor.getSamplesSeen()) / seconds);
      anchor = p;
    }
  }

  private static boolean sameRing(JobProgress a, JobProgress b) {
    return a.getWorkers() == b.getWorkers() && a.getLeaderEpoch() == b.getLeaderEpoch()
        && a.getTopologyVersion() == b.getTopologyVersion();
  }

  @Override
  public OptionalDouble at(int workers) {
    Double t = bySize.get(workers);
    return t == null ? OptionalDouble.empty() : OptionalDouble.of(t);
  }

  /** Every measured size and its samples per second, by size (for the log and the status). */
  public Map<Integer, Double> measured() {
    return Map.copyOf(bySize);
  }
}
