package org.edl.am;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * A job's throughput curve as its job page publishes it for the ResourceManager's
 * Elastic-Tiresias mode ({@code speedup.txt}): {@code <GPUs per worker>:<workers>=<samples/s>,...}
 * for each size up to max-workers that the curve knows (an emulated job's profile; any other
 * job's measurements, which grow as it runs at more sizes). Nothing known yet: {@code <g>:}.
 */
final class PublishedCurve {
  private PublishedCurve() {}

  static String of(ThroughputCurve curve, int gpusPerWorker, int maxWorkers) {
    StringBuilder s = new StringBuilder().append(Math.max(1, gpusPerWorker)).append(':');
    String sep = "";
    for (int k = 1; k <= maxWorkers; k++) {
      OptionalDouble rate = curve.at(k);
      if (rate.isPresent() && rate.getAsDouble() > 0) {
        s.append(sep).append(k).append('=').append(String.format(Locale.ROOT, "%.3f", rate.getAsDouble()));
        sep = ",";
      }
    }
    return s.toString();
  }
}
