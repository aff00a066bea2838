package org.edl.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a change of size cost a PyTorch job, read from its processes' step logs (each process
 * writes {@code start,<time>} and then {@code <time>,<step>,<workers>} for every step it ends), the
 * same way for EDL and torchrun. For a change from {@code a} to {@code b} workers asked at
 * {@code requested}:
 *
 * <ul>
 *   <li>the first new progress {@code t1}: the first end of a step at {@code b} workers numbered
 *       above every step trained at {@code a} (torchrun's restarted workers first redo the steps
 *       since their snapshot: not progress);
 *   <li>stop time: from the last step end at {@code a} workers before {@code t1} to {@code t1},
 *       less the median step time at {@code b}: how long the workers that stay trained nothing;
 *   <li>resource loss (worker-seconds): the stop times the workers that stay, plus for each
 *       newcomer the time from the request to {@code t1} (its GPU is held from its start, which
 *       the request precedes by YARN's or the launcher's own delay).
 * </ul>
 */
public final class PytorchAnalysis {
  /** One step end of one process. */
  record StepEnd(double time, long step, int workers) {}

  /** What one change cost. */
  public record Cost(double stopSeconds, double lossWorkerSeconds) {}

  private final List<StepEnd> ends;

  PytorchAnalysis(List<StepEnd> ends) {
    this.ends = ends;
  }

  /** Every process's step ends in {@code dir} ({@code *.csv}). */
  static PytorchAnalysis read(Path dir) throws IOException {
    List<StepEnd> ends = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".csv")).toList()) {
        for (String line : Files.readAllLines(f)) {
          String[] v = line.split(",");
          if (v.length == 3) {
            ends.add(new StepEnd(Double.parseDouble(v[0]), Long.parseLong(v[1]), Integer.parseInt(v[2])));
          }
        }
      }
    }
    return new PytorchAnalysis(ends);
  }

  /** The steps ended at {@code workers} workers after {@code since} (seconds of the epoch), by any process. */
  long stepsAt(int workers, double since) {
    return ends.stream().filter(e -> e.workers() == workers && e.time() > since).mapToLong(StepEnd::step).distinct()
        .count();
  }

  /** The cost of the change from {@code a} to {@code b} workers asked at {@code requested}. */
  Cost change(double requested, int a, int b) {
    double firstAtB = ends.stream().filter(e -> e.workers() == b && e.time() > requested)
        .mapToDouble(StepEnd::time).min().orElseThrow(() -> new IllegalStateException("no step at " + b
            + " workers after the request"));
    long lastStepAtA = ends.stream().filter(e -> e.workers() == a && e.time() < firstAtB)
        .mapToLong(StepEnd::step).max().orElseThrow(() -> new IllegalStateException("no step at " + a + " workers"));
    double lastEndAtA = ends.stream().filter(e -> e.workers() == a && e.time() < firstAtB)
        .mapToDouble(StepEnd::time).max().orElseThrow();
    double t1 = ends.stream().filter(e -> e.workers() == b && e.step() > lastStepAtA && e.time() > requested)
        .mapToDouble(StepEnd::time).min().orElseThrow(() -> new IllegalStateException("no progress at " + b
            + " workers after step " + lastStepAtA));
    double stop = Math.max(0, t1 - lastEndAtA - medianStep(b, t1));
    double loss = Math.min(a, b) * stop + Math.max(0, b - a) * (t1 - requested);
    return new Cost(stop, loss);
  }

  /** The median time of one step at {@code workers} workers after {@code from}: gaps between the steps' last ends. */
  private double medianStep(int workers, double from) {
    java.util.TreeMap<Long, Double> lastEnd = new java.util.TreeMap<>();
    ends.stream().filter(e -> e.workers() == workers && e.time() >= from)
        .forEach(e -> lastEnd.merge(e.step(), e.time(), Math::max));
    List<Double> gaps = new ArrayList<>();
    Long previous = null;
    for (var e : lastEnd.entrySet()) {
      if (previous != null && e.getKey() == previous + 1 && gaps.size() < 200) {
        gaps.add(e.getValue() - lastEnd.get(previous));
      }
      previous = e.getKey();
    }
    if (gaps.isEmpty()) {
      return 0;
    }
    double[] g = gaps.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(g);
    return g[g.length / 2];
  }
}
