package org.edl.scheduler.rm;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's throughput curve as the RM reads it from the application tag
 * {@value #TAG}{@code <gpusPerWorker>:<s1>/<s2>/...}: {@code sK} is the job's throughput with
 * {@code K} workers over its throughput with one (the job's own profile; {@code edl submit} writes
 * it for an {@code emulated} job). Tags are the one place a submitter can leave facts the RM keeps
 * with the application; they cannot change afterwards, so a curve a job measures while it runs is
 * not here (docs/operations.md). Between two worker counts the speed-up is linear in the GPUs;
 * past the last one it stays at the last (no gain is promised that was not measured).
 */
final class SpeedupCurve {
  private static final Logger LOG = LoggerFactory.getLogger(SpeedupCurve.class);
  static final String TAG = "edl-speedup=";

  private final int gpusPerWorker;
  private final double[] byWorkers;

  private SpeedupCurve(int gpusPerWorker, double[] byWorkers) {
    this.gpusPerWorker = gpusPerWorker;
    this.byWorkers = byWorkers;
  }

  /** The speed-up at {@code gpus} GPUs relative to one worker; 0 at none. */
  double at(int gpus) {
    if (gpus <= 0) {
      return 0;
    }
    double workers = gpus / (double) gpusPerWorker;
    if (workers <= 1) {
      return workers * byWorkers[0];
    }
    if (workers >= byWorkers.length) {
      return byWorkers[byWorkers.length - 1];
    }
    int lo = (int) Math.floor(workers);
    double w = workers - lo;
    return byWorkers[lo - 1] + w * (byWorkers[lo] - byWorkers[lo - 1]);
  }

  /** The curve of the first tag that names one; null (linear) without a well-formed one. */
  static SpeedupCurve of(Set<String> tags) {
    for (String t : tags) {
      if (t.startsWith(TAG)) {
        SpeedupCurve c = parse(t.substring(TAG.length()));
        if (c != null) {
          return c;
        }
        LOG.warn("ignoring application tag '{}': expected {}<GPUs per worker>:<speed-up at 1 worker>/<at 2>/...,"
            + " each a positive number", t, TAG);
      }
    }
    return null;
  }

  private static SpeedupCurve parse(String text) {
    int colon = text.indexOf(':');
    if (colon < 1) {
      return null;
    }
    try {
      int perWorker = Integer.parseInt(text.substring(0, colon).trim());
      double[] values = Arrays.stream(text.substring(colon + 1).split("/")).mapToDouble(s -> Double.parseDouble(s.trim()))
          .toArray();
      if (perWorker < 1 || values.length == 0 || Arrays.stream(values).anyMatch(v -> !(v > 0) || Double.isInfinite(v))) {
        return null;
      }
      return new SpeedupCurve(perWorker, values);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%d GPU(s) per worker: %s", gpusPerWorker, Arrays.toString(byWorkers));
  }
}
