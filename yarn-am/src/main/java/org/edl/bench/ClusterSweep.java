package org.edl.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.edl.scheduler.sim.SimResult;

/**
 * {@code edl bench cluster --sweep}: where, by the simulator, Elastic's average JCT over
 * Static's falls to a goal, for the bench's jobs under other loads than the live run's: cluster
 * sizes, arrival intervals and training times, with the RM's queues and with a single queue (no
 * demotion, so no preemption of a job for its attained service). Each job trains its planned
 * time times {@code pace} (how much slower than its profile the emulation ran live) and pays one
 * start cost; the simulator alone, no cluster, a few seconds.
 */
public final class ClusterSweep {
  /** The RM's queues, then one queue without bound. */
  static final List<TiresiasParams> QUEUES = List.of(TiresiasParams.DEFAULT,
      new TiresiasParams(new double[0], 0, TiresiasParams.DEFAULT.waitingThreshold(),
          TiresiasParams.DEFAULT.minFraction(), TiresiasParams.DEFAULT.maxFactor()));

  /** One setting's outcome. */
  public record Point(int clusterGpus, int intervalS, double trainS, String queues, double staticJctS,
      double elasticJctS, int elasticPreemptions) {
    public double ratio() {
      return elasticJctS / staticJctS;
    }
  }

  private ClusterSweep() {}

  public static List<Point> run(int jobs, int gpus, List<String> models, long seed, List<Integer> clusterGpus,
      List<Integer> intervalsS, List<Double> trainS, double pace, double startCostS) throws IOException {
    List<Point> points = new ArrayList<>();
    for (int cluster : clusterGpus) {
      for (int interval : intervalsS) {
        for (double train : trainS) {
          ClusterPlan plan = ClusterPlan.draw(jobs, interval * 1000L, gpus, ClusterReport.CLUSTER_GPUS, models, seed,
              train);
          double[] duration = plan.jobs().stream()
              .mapToDouble(j -> j.steps() * j.globalBatch() / j.throughputByGpus().get(gpus) * pace).toArray();
          for (TiresiasParams q : QUEUES) {
            SimResult[] r = ClusterReport.replay(plan, duration, startCostS, cluster, q, ClusterReport.BUCKET_S);
            points.add(new Point(cluster, interval, train, q == TiresiasParams.DEFAULT ? "rm" : "one",
                r[0].averageJct(), r[1].averageJct(),
                r[1].jobs().stream().mapToInt(SimResult.SimJobResult::preemptions).sum()));
          }
        }
      }
    }
    return points;
  }

  static final String HEADER = "cluster_gpus,interval_s,train_s,queues,static_avg_jct_s,elastic_avg_jct_s,ratio,"
      + "elastic_preemptions";

  public static void writeCsv(List<Point> points, Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Point p : points) {
      rows.add(List.of(p.clusterGpus(), p.intervalS(), fmt(p.trainS(), 0), p.queues(), fmt(p.staticJctS(), 1),
          fmt(p.elasticJctS(), 1), fmt(p.ratio(), 3), p.elasticPreemptions()));
    }
    BenchCsv.write(csv, HEADER, rows);
  }

  /** Markdown: a row per cluster size and training time, a column per interval; "rm / one" queues; * at or under the goal. */
  public static String table(List<Point> points, double goal) {
    List<Integer> intervals = points.stream().map(Point::intervalS).distinct().sorted().toList();
    StringBuilder t = new StringBuilder("| GPUs | train s |");
    intervals.forEach(i -> t.append(" every ").append(i).append(" s |"));
    t.append("\n|---:|---:|").append("---|".repeat(intervals.size())).append('\n');
    for (int cluster : points.stream().map(Point::clusterGpus).distinct().sorted().toList()) {
      for (double train : points.stream().map(Point::trainS).distinct().sorted().toList()) {
        t.append("| ").append(cluster).append(" | ").append(fmt(train, 0)).append(" |");
        for (int interval : intervals) {
          t.append(' ').append(cell(points, cluster, interval, train, "rm", goal)).append(" / ")
              .append(cell(points, cluster, interval, train, "one", goal)).append(" |");
        }
        t.append('\n');
      }
    }
    return t.toString();
  }

  private static String cell(List<Point> points, int cluster, int interval, double train, String queues, double goal) {
    return points.stream().filter(p -> p.clusterGpus() == cluster && p.intervalS() == interval && p.trainS() == train
        && p.queues().equals(queues)).findFirst().map(p -> fmt(p.ratio(), 3) + (p.ratio() <= goal ? "*" : ""))
        .orElse("-");
  }

  private static String fmt(double v, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }
}
