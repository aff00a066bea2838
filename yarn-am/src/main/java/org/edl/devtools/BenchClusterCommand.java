package org.edl.devtools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.edl.bench.ClusterBench;
import org.edl.bench.ClusterPlan;
import org.edl.bench.ClusterReport;
import org.edl.job.InvalidInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code edl bench cluster}: Static against Elastic on the live embedded cluster in the
 * Elastic-Tiresias mode (the paper's Figure 11), then the same jobs through the simulator.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, sortOptions = false, description = "Static against"
    + " Elastic on the embedded cluster (2 nodes x 4 GPUs, Elastic-Tiresias mode): emulated jobs, one every"
    + " interval; then the same jobs through the simulator. Writes cluster.csv, cluster-jobs.csv,"
    + " cluster-series.csv, the live runs' readings and two charts.")
final class BenchClusterCommand implements Callable<Integer> {
  @Option(names = "--jobs", defaultValue = "16", description = "Jobs (default: ${DEFAULT-VALUE}).")
  int jobs;
  @Option(names = "--interval-s", defaultValue = "30",
      description = "Seconds between two submissions (default: ${DEFAULT-VALUE}).")
  int intervalS;
  @Option(names = "--gpus", defaultValue = "4", description = "GPUs each job asks for (default: ${DEFAULT-VALUE}).")
  int gpus;
  @Option(names = "--models", defaultValue = "imagenet,cifar10", split = ",",
      description = "Emulated models drawn from (default: ${DEFAULT-VALUE}).")
  List<String> models;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of the models' draw (default: ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--train-s", defaultValue = "60",
      description = "Seconds each job trains on its requested GPUs, by its profile (default: ${DEFAULT-VALUE}).")
  double trainS;
  @Option(names = "--hold-off-ms", defaultValue = "10000",
      description = "Elastic jobs' --grow-hold-off-ms (default: ${DEFAULT-VALUE}).")
  long holdOffMs;
  @Option(names = "--strategies", defaultValue = "static,elastic", split = ",",
      description = "Live runs, in this order (default: ${DEFAULT-VALUE}); the simulation needs static.")
  List<String> strategies;
  @Option(names = "--timeout-min", defaultValue = "40",
      description = "Longest a live run may take (default: ${DEFAULT-VALUE}).")
  int timeoutMin;
  @Option(names = "--out", defaultValue = "docs/benchmarks",
      description = "Where the CSVs and charts go (default: ${DEFAULT-VALUE}).")
  Path out;
  @Option(names = "--replot", description = "Redo the analysis and the simulation from the"
      + " cluster-live-jobs.csv and cluster-live-samples.csv in this directory instead of running jobs"
      + " (same --jobs, --interval-s, --gpus, --models, --seed, --train-s as the run).")
  Path replot;
  @Option(names = "--sweep", description = "Run no jobs: simulate the plan's jobs over --sweep-gpus,"
      + " --sweep-intervals-s and --sweep-train-s (with the RM's queues and with one queue) and write cluster-sweep.csv.")
  boolean sweep;
  @Option(names = "--sweep-gpus", defaultValue = "8,16,32", split = ",",
      description = "Cluster sizes of --sweep (default: ${DEFAULT-VALUE}).")
  List<Integer> sweepGpus;
  @Option(names = "--sweep-intervals-s", defaultValue = "15,30,60,90,120", split = ",",
      description = "Seconds between submissions of --sweep (default: ${DEFAULT-VALUE}).")
  List<Integer> sweepIntervals;
  @Option(names = "--sweep-train-s", defaultValue = "60,120,240,480", split = ",",
      description = "Training seconds of --sweep (default: ${DEFAULT-VALUE}).")
  List<Double> sweepTrainS;
  @Option(names = "--start-s", defaultValue = "10.1", description = "--sweep: each job's start-up plus ending"
      + " (default: ${DEFAULT-VALUE}, the live Static run's of 2026-12-05).")
  double startS;
  @Option(names = "--pace", defaultValue = "1.025", description = "--sweep: live training time over the profile's"
      + " (default: ${DEFAULT-VALUE}, measured in the same run).")
  double pace;
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    ClusterPlan plan = plan();
    if (sweep) {
      return sweep(console);
    }
    List<ClusterBench.Strategy> order = new ArrayList<>();
    for (String s : strategies) {
      try {
        order.add(ClusterBench.Strategy.of(s));
      } catch (InvalidInputException e) {
        throw new InvalidInputException("--strategies", s, "expected static or elastic");
      }
    }
    List<ClusterBench.Run> runs = new ArrayList<>();
    if (replot != null) {
      runs.addAll(ClusterBench.readRuns(replot.resolve("cluster-live-jobs.csv"),
          replot.resolve("cluster-live-samples.csv")));
    } else {
      console.println("Every job here is emulated with --emulated-sync profile: each step waits the profile's"
          + " gradient sync time instead of all-reducing the real gradient (the broadcast to newcomers moves the"
          + " real size).");
      ClusterBench bench = new ClusterBench(plan, holdOffMs, Duration.ofMinutes(timeoutMin), console);
      for (ClusterBench.Strategy s : order) {
        runs.add(bench.run(s));
        ClusterBench.writeRuns(runs, out.resolve("cluster-live-jobs.csv"), out.resolve("cluster-live-samples.csv"));
        console.println(ClusterBench.summary(runs.get(runs.size() - 1)));
      }
    }
    ClusterBench.Run liveStatic = runs.stream().filter(r -> r.strategy() == ClusterBench.Strategy.STATIC)
        .findFirst().orElse(null);
    ClusterReport report = new ClusterReport(plan, liveStatic);
    runs.forEach(report::addLive);
    if (liveStatic != null) {
      report.simulate();
      console.println(String.format(Locale.ROOT, "Simulated with the live Static run's durations and a start cost"
          + " of %.1f s per job (its start-up and its ending).", report.simInputs().startCostS()));
    }
    report.writeCsv(out.resolve("cluster.csv"));
    report.writeJobsCsv(out.resolve("cluster-jobs.csv"));
    report.writeSeriesCsv(out.resolve("cluster-series.csv"));
    report.writeChart(out.resolve("cluster-efficiency.png"), false);
    report.writeChart(out.resolve("cluster-per-gpu-efficiency.png"), true);
    console.println(report.table());
    console.println("Wrote cluster.csv, cluster-jobs.csv, cluster-series.csv, cluster-efficiency.png and"
        + " cluster-per-gpu-efficiency.png in " + out);
    return 0;
  }

  private int sweep(PrintWriter console) throws IOException {
    requirePositive("--sweep-gpus", sweepGpus.stream().map(Double::valueOf).toList());
    requirePositive("--sweep-intervals-s", sweepIntervals.stream().map(Double::valueOf).toList());
    requirePositive("--sweep-train-s", sweepTrainS);
    if (!(startS >= 0)) {
      throw new InvalidInputException("--start-s", startS, "must be 0 or more");
    }
    if (!(pace > 0)) {
      throw new InvalidInputException("--pace", pace, "must be more than 0");
    }
    List<org.edl.bench.ClusterSweep.Point> points = org.edl.bench.ClusterSweep.run(jobs, gpus, models, seed,
        sweepGpus, sweepIntervals, sweepTrainS, pace, startS);
    Path csv = out.resolve("cluster-sweep.csv");
    org.edl.bench.ClusterSweep.writeCsv(points, csv);
    console.println(String.format(Locale.ROOT, "Simulated only: %d jobs of %d GPUs, each training its planned time x %.3f"
        + " and paying %.1f s to start and end. Elastic / Static average JCT, the RM's queues / one queue"
        + " (* at or under 0.7):", jobs, gpus, pace, startS));
    console.println(org.edl.bench.ClusterSweep.table(points, 0.7));
    console.println("Wrote " + csv);
    return 0;
  }

  private static void requirePositive(String flag, List<Double> values) {
    for (double v : values) {
      if (!(v > 0)) {
        throw new InvalidInputException(flag, v, "every value must be more than 0");
      }
    }
  }

  /** The flags checked and the jobs drawn; a bad value is named as the flag is typed. */
  private ClusterPlan plan() throws IOException {
    if (jobs < 1) {
      throw new InvalidInputException("--jobs", jobs, "must be at least 1");
    }
    if (intervalS < 0) {
      throw new InvalidInputException("--interval-s", intervalS, "must be 0 or more");
    }
    if (gpus < 1 || gpus > ClusterReport.CLUSTER_GPUS / 2) {
      throw new InvalidInputException("--gpus", gpus, "must be 1 to " + ClusterReport.CLUSTER_GPUS / 2
          + " (Elastic grows a job to twice its request; the embedded cluster has " + ClusterReport.CLUSTER_GPUS + ")");
    }
    if (!(trainS > 0)) {
      throw new InvalidInputException("--train-s", trainS, "must be more than 0");
    }
    try {
      return ClusterPlan.draw(jobs, intervalS * 1000L, gpus, ClusterReport.CLUSTER_GPUS, models, seed, trainS);
    } catch (InvalidInputException e) {
      // The plan names its fields as the flags are named, less the dashes.
      throw e.renamed("--" + e.field());
    }
  }
}
