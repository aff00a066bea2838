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
 * it for an {@code emulated} job), or as its ApplicationMaster publishes it while it runs
 * ({@link #published}, fetched by {@link AmSpeedups}): tags cannot change after submission.
 * Between two worker counts the speed-up is linear in the GPUs; past the last one it stays at the
 * last (no gain is promised that was not measured).
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

  /** The number of workers the curve goes up to (flat past it). */
  int sizes() {
    return byWorkers.length;
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

  /**
   * The curve an ApplicationMaster publishes ({@code <gpusPerWorker>:<workers>=<samples/s>,...}: the
   * throughput it measured or profiled at each size it knows, in any order). Dense up to the largest
   * size given: between two given sizes the throughput is interpolated linearly, below the
   * smallest it is taken proportional to the workers (so the curve starts at one worker), and past
   * the largest, as for a tag, it stays flat. Null when the text names no size or is malformed.
   */
  static SpeedupCurve published(String text) {
    int colon = text.indexOf(':');
    if (colon < 1) {
      return null;
    }
    try {
      int perWorker = Integer.parseInt(text.substring(0, colon).trim());
      java.util.TreeMap<Integer, Double> bySize = new java.util.TreeMap<>();
      for (String pair : text.substring(colon + 1).trim().split(",")) {
        if (pair.isBlank()) {
          continue;
        }
        int eq = pair.indexOf('=');
        int workers = Integer.parseInt(pair.substring(0, eq).trim());
        double rate = Double.parseDouble(pair.substring(eq + 1).trim());
        if (workers < 1 || !(rate > 0) || Double.isInfinite(rate)) {
          return null;
        }
        bySize.put(workers, rate);
      }
      if (perWorker < 1 || bySize.isEmpty()) {
        return null;
      }
      int smallest = bySize.firstKey();
      double one = bySize.firstEntry().getValue() / smallest;
      double[] byWorkers = new double[bySize.lastKey()];
      for (int k = 1; k <= byWorkers.length; k++) {
        double rate;
        if (k <= smallest) {
          rate = one * k;
        } else {
          var lo = bySize.floorEntry(k);
          var hi = bySize.ceilingEntry(k);
          rate = lo.getKey().equals(hi.getKey()) ? lo.getValue()
              : lo.getValue() + (hi.getValue() - lo.getValue()) * (k - lo.getKey()) / (hi.getKey() - lo.getKey());
        }
        byWorkers[k - 1] = rate / one;
      }
      return new SpeedupCurve(perWorker, byWorkers);
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%d GPU(s) per worker: %s", gpusPerWorker, Arrays.toString(byWorkers));
  }
}
