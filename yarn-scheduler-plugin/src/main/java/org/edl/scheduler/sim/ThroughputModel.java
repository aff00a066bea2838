package org.edl.scheduler.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Speed-up of one training job against its GPU count, from the measured profiles
 * ({@code profiles/<model>/placements.csv} and {@code scalability.csv}, nodes of 4 GPUs).
 *
 * <p>Throughput at a placement is the best measured over per-GPU batch sizes
 * ({@code gpus x local_bsz / step_time}): a tuned job runs at its best batch. Jobs are placed
 * consolidated (as few 4-GPU nodes as possible), so up to 16 GPUs the placement is exact
 * ({@code "4"}, {@code "14"} = 1 + 4, {@code "444"}, ...). Above that, {@code scalability.csv}
 * gives counts from 6 to 64 replicas; between two measured counts throughput is interpolated
 * linearly in the GPU count, and above the largest it keeps that count's per-GPU throughput.
 * {@link #speedup} is throughput at n over throughput at 1. The files are read by the rules of
 * {@link CsvRows}, the same as the worker's emulated backend reads placements.csv by.
 */
public final class ThroughputModel {
  private final String name;
  private final double[] speedup;

  ThroughputModel(String name, TreeMap<Integer, Double> throughputByGpus, int maxGpus) {
    this.name = name;
    double one = throughputByGpus.get(1);
    speedup = new double[maxGpus + 1];
    for (int n = 1; n <= maxGpus; n++) {
      Map.Entry<Integer, Double> lo = throughputByGpus.floorEntry(n);
      Map.Entry<Integer, Double> hi = throughputByGpus.ceilingEntry(n);
      double t;
      if (hi == null) {
        t = lo.getValue() / lo.getKey() * n;
      } else if (lo.getKey().equals(hi.getKey())) {
        t = lo.getValue();
      } else {
        double w = (double) (n - lo.getKey()) / (hi.getKey() - lo.getKey());
        t = lo.getValue() + w * (hi.getValue() - lo.getValue());
      }
      speedup[n] = t / one;
    }
  }

  /**
   * A model from throughputs measured or worked out elsewhere (samples/s by GPU count, at least
   * at one GPU), interpolated as the profiles' are: how a benchmark gives the simulator a job's
   * curve at its own batch rule instead of the best batch at each size.
   */
  public static ThroughputModel of(String name, Map<Integer, Double> throughputByGpus, int maxGpus) {
    if (!throughputByGpus.containsKey(1)) {
      throw new IllegalArgumentException(name + ": no throughput at one GPU, which every speed-up is relative to");
    }
    return new ThroughputModel(name, new TreeMap<>(throughputByGpus), maxGpus);
  }

  public String name() {
    return name;
  }

  /** Throughput at {@code gpus} over throughput at one GPU; 0 at 0 GPUs. */
  public double speedup(int gpus) {
    if (gpus <= 0) {
      return 0;
    }
    return gpus < speedup.length ? speedup[gpus] : speedup[speedup.length - 1] / (speedup.length - 1) * gpus;
  }

  /** Reads every model under {@code profilesDir}, sorted by name. */
  public static Map<String, ThroughputModel> readAll(Path profilesDir, int maxGpus) throws IOException {
    Map<String, ThroughputModel> models = new TreeMap<>();
    if (!Files.isDirectory(profilesDir)) {
      throw new TraceFormatException(profilesDir.toString(), 0, "profiles", profilesDir.toString(), "no such directory");
    }
    try (var dirs = Files.list(profilesDir)) {
      for (Path d : (Iterable<Path>) dirs.sorted()::iterator) {
        if (Files.isRegularFile(d.resolve("placements.csv"))) {
          String name = d.getFileName().toString();
          models.put(name, read(name, d, maxGpus));
        }
      }
    }
    if (models.isEmpty()) {
      throw new TraceFormatException(profilesDir.toString(), 0, "profiles", profilesDir.toString(),
          "no <model>/placements.csv under it");
    }
    return models;
  }

  static ThroughputModel read(String name, Path dir, int maxGpus) throws IOException {
    TreeMap<Integer, Double> best = new TreeMap<>();
    Map<String, Double> byPlacement = new HashMap<>();
    forEachRow(dir.resolve("placements.csv"), (file, line, f) -> {
      String placement = f.get("placement");
      if (placement == null) {
        throw new TraceFormatException(file, line, "placement", "null", "not a string of digits");
      }
      int gpus = 0;
      for (char c : placement.toCharArray()) {
        if (c < '0' || c > '9') {
          throw new TraceFormatException(file, line, "placement", placement, "not a string of digits");
        }
        gpus += c - '0';
      }
      double t = gpus * num(file, line, "local_bsz", f) / num(file, line, "step_time", f);
      byPlacement.merge(placement, t, Math::max);
    });
    for (int n = 1; n <= 16; n++) {
      String p = consolidated(n);
      Double t = byPlacement.get(p);
      if (t != null) {
        best.put(n, t);
      }
    }
    if (!best.containsKey(1)) {
      throw new TraceFormatException(dir.resolve("placements.csv").toString(), 0, "placement", "1",
          "no row for one GPU, which every speed-up is relative to");
    }
    Path scal = dir.resolve("scalability.csv");
    if (Files.isRegularFile(scal)) {
      Map<Integer, Double> wide = new HashMap<>();
      forEachRow(scal, (file, line, f) -> {
        int gpus = (int) num(file, line, "num_replicas", f);
        double t = gpus * num(file, line, "local_bsz", f) / num(file, line, "step_time", f);
        wide.merge(gpus, t, Math::max);
      });
      wide.forEach((g, t) -> {
        if (g > 16) {
          best.put(g, t);
        }
      });
    }
    return new ThroughputModel(name, best, maxGpus);
  }

  /** The most consolidated placement of n GPUs on 4-GPU nodes, as the profiles spell it. */
  static String consolidated(int n) {
    StringBuilder b = new StringBuilder();
    if (n % 4 != 0) {
      b.append(n % 4);
    }
    b.append("4".repeat(n / 4));
    return b.toString();
  }

  private interface Row {
    void accept(String file, long line, CsvRows.Row fields);
  }

  private static void forEachRow(Path csv, Row row) throws IOException {
    try (CsvRows rows = CsvRows.open(csv)) {
      for (CsvRows.Row r = rows.next(); r != null; r = rows.next()) {
        row.accept(rows.file(), r.line(), r);
      }
    }
  }

  private static double num(String file, long line, String field, CsvRows.Row f) {
    String v = f.get(field);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException | NullPointerException e) {
      throw new TraceFormatException(file, line, field, String.valueOf(v), "not a number");
    }
  }
}
