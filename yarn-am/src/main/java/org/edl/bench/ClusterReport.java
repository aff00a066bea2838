package org.edl.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.edl.scheduler.sim.ScaleCosts;
import org.edl.scheduler.sim.SimConfig;
import org.edl.scheduler.sim.SimResult;
import org.edl.scheduler.sim.Simulation;
import org.edl.scheduler.sim.Simulator;
import org.edl.scheduler.sim.ThroughputModel;
import org.edl.scheduler.sim.Trace;
import org.edl.scheduler.sim.TraceJob;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code edl bench cluster}'s figures: per strategy and runner (live, sim) the average JCT, the
 * makespan and the mean cluster efficiency, and over time the cluster efficiency and the average
 * per-GPU efficiency, as the paper defines them: a job's speed-up is its throughput over its
 * throughput on one GPU; cluster efficiency sums the running jobs' speed-ups over the cluster's
 * GPUs, per-GPU efficiency over the GPUs they hold.
 *
 * <p>Live, a job's speed-up is its steps per second as its AM reported them, times its seconds per
 * step on its requested GPUs in the live Static run, times the profile's speed-up at that size:
 * the profile gives the curve's shape, this machine its pace (a step here takes longer than the
 * profile says, by the emulation's own overhead). The simulator replays the same jobs with what
 * the live Static run measured ({@link #simulate}), so that both runners count the same work.
 */
public final class ClusterReport {
  /** Width of the time series' buckets: AMs report steps in bursts, which 10 s buckets show as noise. */
  static final double BUCKET_S = 30;
  public static final int CLUSTER_GPUS = 8;

  /** One strategy under one runner. */
  public record Outcome(String strategy, String runner, int jobs, double avgJctS, double makespanS,
      double meanClusterEfficiency, double[] timeS, double[] gpusBusy, double[] clusterEfficiency,
      double[] perGpuEfficiency, double[] jctS) {}

  /** What the simulator was given, for the docs. */
  public record SimInputs(double[] durationS, double startCostS) {}

  private final ClusterPlan plan;
  private final ClusterBench.Run liveStatic;
  private final double bucketS;
  /** Job -> seconds per step on its requested GPUs in the live Static run (absent: the profile's). */
  private final Map<Integer, Double> pace = new HashMap<>();
  private final List<Outcome> outcomes = new ArrayList<>();
  private SimInputs simInputs;

  /** @param liveStatic the live Static run, which gives the jobs' pace here; null for the profile's */
  public ClusterReport(ClusterPlan plan, ClusterBench.Run liveStatic) {
    this(plan, liveStatic, BUCKET_S);
  }

  ClusterReport(ClusterPlan plan, ClusterBench.Run liveStatic, double bucketS) {
    this.plan = plan;
    this.bucketS = bucketS;
    this.liveStatic = liveStatic;
    if (liveStatic != null) {
      for (ClusterBench.JobRun j : liveStatic.jobs()) {
        Training t = training(liveStatic, j);
        if (t != null && t.lastMs() > t.firstMs() && t.lastStep() > t.firstStep()) {
          pace.put(j.index(), (t.lastMs() - t.firstMs()) / 1000.0 / (t.lastStep() - t.firstStep()));
        }
      }
    }
  }

  /** The first and last readings of a job's training: time and step of each. */
  private record Training(long firstMs, long firstStep, long lastMs, long lastStep) {}

  private Training training(ClusterBench.Run run, ClusterBench.JobRun j) {
    long steps = plan.jobs().get(j.index()).steps();
    ClusterBench.Sample first = null;
    ClusterBench.Sample last = null;
    for (ClusterBench.Sample s : run.samples()) {
      if (s.index() != j.index() || s.step() <= 0) {
        continue;
      }
      if (first == null) {
        first = s;
      }
      if (last == null || s.step() > last.step()) {
        last = s;
      }
      if (s.step() >= steps) {
        break;
      }
    }
    return first == null ? null : new Training(first.timeMs(), first.step(), last.timeMs(), last.step());
  }

  /** What one step of the job is worth in speed-up-seconds: its speed-up at its request times its pace. */
  private double stepWorth(int job) {
    ClusterPlan.PlannedJob j = plan.jobs().get(job);
    Double p = pace.get(job);
    return p == null ? j.oneGpuStepS() : p * j.throughputByGpus().get(plan.gpus()) / j.throughputByGpus().get(1);
  }

  public List<Outcome> outcomes() {
    return outcomes;
  }

  public SimInputs simInputs() {
    return simInputs;
  }

  /** Adds a live run's figures. */
  public Outcome addLive(ClusterBench.Run run) {
    List<ClusterBench.JobRun> jobs = run.jobs();
    long first = jobs.stream().mapToLong(ClusterBench.JobRun::submitMs).min().orElse(run.startMs());
    long last = jobs.stream().mapToLong(ClusterBench.JobRun::finishMs).max().orElse(first);
    double makespan = (last - first) / 1000.0;
    int buckets = (int) Math.ceil(makespan / bucketS);
    double[] time = new double[buckets];
    double[] busy = new double[buckets];
    double[] speedups = new double[buckets];
    Map<Integer, List<ClusterBench.Sample>> byJob = new HashMap<>();
    for (ClusterBench.Sample s : run.samples()) {
      byJob.computeIfAbsent(s.index(), k -> new ArrayList<>()).add(s);
    }
    for (ClusterBench.JobRun j : jobs) {
      List<ClusterBench.Sample> samples = new ArrayList<>(byJob.getOrDefault(j.index(), List.of()));
      if ("SUCCEEDED".equals(j.finalStatus())) {
        samples.add(new ClusterBench.Sample(j.finishMs(), j.index(), 0, plan.jobs().get(j.index()).steps()));
      }
      double worth = stepWorth(j.index());
      for (int b = 0; b < buckets; b++) {
        long from = first + Math.round(b * bucketS * 1000);
        long to = Math.min(last, first + Math.round((b + 1) * bucketS * 1000));
        double width = (to - from) / 1000.0;
        if (width <= 0) {
          continue;
        }
        double steps = Math.max(0, stepAt(samples, to) - stepAt(samples, from));
        speedups[b] += steps * worth / width;
        busy[b] += meanWorkers(samples, from, to);
      }
    }
    double[] cluster = new double[buckets];
    double[] perGpu = new double[buckets];
    double integral = 0;
    for (int b = 0; b < buckets; b++) {
      time[b] = b * bucketS;
      cluster[b] = speedups[b] / CLUSTER_GPUS;
      perGpu[b] = busy[b] > 0 ? speedups[b] / busy[b] : 0;
      integral += cluster[b] * Math.min(bucketS, makespan - b * bucketS);
    }
    double[] jct = jobs.stream().mapToDouble(ClusterBench.JobRun::jctS).toArray();
    Outcome o = new Outcome(run.strategy().csv(), "live", jobs.size(), Arrays.stream(jct).average().orElse(0),
        makespan, makespan > 0 ? integral / makespan : 0, time, busy, cluster, perGpu, jct);
    outcomes.add(o);
    return o;
  }

  /**
   * Replays the plan through the simulator: Static as FIFO (each job on its request, later ones
   * wait, nobody preempted, as the live Static run), Elastic as the simulator's Elastic-Tiresias
   * with the RM's defaults. A job's duration at its request is what it trained for in the live
   * Static run (first step to last); every job pays, as its start cost, the live Static run's
   * median start-up (from the moment its GPUs were free to its first step) plus its median ending
   * (last step to the application's finish: the model written, the AM gone); scale operations cost
   * the measured EDL figures ({@link ScaleCosts#measured}). Its speed-ups are the profile's at the
   * job's fixed global batch, as the live job's AM grows by, not the simulator's best batch per size.
   *
   * @throws IllegalStateException without a live Static run
   */
  public void simulate() {
    if (liveStatic == null) {
      throw new IllegalStateException("the simulation takes its durations from the live Static run");
    }
    simInputs = measure(liveStatic);
    SimResult[] r = replay(plan, simInputs.durationS(), simInputs.startCostS(), CLUSTER_GPUS, TiresiasParams.DEFAULT,
        bucketS);
    addSim("static", r[0]);
    addSim("elastic", r[1]);
  }

  /**
   * The plan's jobs through the simulator on a pool of {@code clusterGpus}: Static as FIFO,
   * Elastic as Elastic-Tiresias with {@code params} and, as the RM does, elastic jobs' floors kept
   * where Tiresias passes them over ({@link TiresiasParams#floorsKept}); job {@code i} trains
   * {@code durationS[i]} on its request and pays {@code startCostS} once. Returns {static, elastic}.
   */
  static SimResult[] replay(ClusterPlan plan, double[] durationS, double startCostS, int clusterGpus,
      TiresiasParams params, double bucketS) {
    List<TraceJob> jobs = new ArrayList<>();
    ThroughputModel[] models = new ThroughputModel[plan.jobs().size()];
    for (ClusterPlan.PlannedJob j : plan.jobs()) {
      jobs.add(new TraceJob(j.index(), j.submitOffsetMs() / 1000, durationS[j.index()], plan.gpus(), "bench",
          j.model()));
      models[j.index()] = ThroughputModel.of(j.model() + "@" + j.globalBatch(), j.throughputByGpus(), CLUSTER_GPUS);
    }
    Trace trace = new Trace("edl bench cluster", jobs, 0, 0);
    ScaleCosts costs = ScaleCosts.measured("edl").withStartAndRestart(startCostS, null);
    SimConfig cfg = new SimConfig(clusterGpus, 1, costs, true, bucketS);
    return new SimResult[] {
        new Simulator(trace, models, Simulation.policy("fifo", clusterGpus, params), cfg, null).run(),
        new Simulator(trace, models, Simulation.policy("elastic-tiresias", clusterGpus, params.withFloorsKept(true)), cfg, null).run()};
  }

  private SimInputs measure(ClusterBench.Run liveStatic) {
    List<ClusterBench.JobRun> jobs = liveStatic.jobs();
    double[] duration = new double[jobs.size()];
    long[] finishes = jobs.stream().mapToLong(ClusterBench.JobRun::finishMs).sorted().toArray();
    int concurrent = CLUSTER_GPUS / plan.gpus();
    List<Double> starts = new ArrayList<>();
    List<Double> endings = new ArrayList<>();
    for (ClusterBench.JobRun j : jobs) {
      Training t = training(liveStatic, j);
      if (t == null) {
        throw new IllegalStateException("job " + j.index() + " (" + j.appId() + ") never reported a step in the"
            + " live Static run: " + j.finalStatus());
      }
      // The first reading is a poll after the first step ended: the steps before it count as trained.
      double perStep = pace.getOrDefault(j.index(), 0.0);
      duration[j.index()] = Math.max(1, (t.lastMs() - t.firstMs()) / 1000.0 + t.firstStep() * perStep);
      // First come, first served: job i gets the GPUs the (i - concurrent)-th finish frees.
      long ready = j.index() < concurrent ? j.submitMs()
          : Math.max(j.submitMs(), finishes[j.index() - concurrent]);
      double firstStepS = (t.firstMs() - ready) / 1000.0 - t.firstStep() * perStep;
      if (firstStepS >= 0) {
        starts.add(firstStepS);
      }
      endings.add((j.finishMs() - t.lastMs()) / 1000.0);
    }
    return new SimInputs(duration, median(starts) + median(endings));
  }

  private static double median(List<Double> values) {
    return values.isEmpty() ? 0 : values.stream().sorted().toList().get(values.size() / 2);
  }

  private void addSim(String strategy, SimResult r) {
    double first = r.jobs().stream().mapToDouble(SimResult.SimJobResult::submitS).min().orElse(0);
    double last = r.jobs().stream().mapToDouble(SimResult.SimJobResult::finishS).max().orElse(first);
    double[] perGpu = new double[r.seriesTime().length];
    double[] busy = new double[perGpu.length];
    for (int b = 0; b < perGpu.length; b++) {
      busy[b] = r.seriesUtilisation()[b] * CLUSTER_GPUS;
      perGpu[b] = busy[b] > 0 ? r.seriesEfficiency()[b] * CLUSTER_GPUS / busy[b] : 0;
    }
    double[] jct = new double[r.jobs().size()];
    for (SimResult.SimJobResult j : r.jobs()) {
      jct[(int) j.id()] = j.jctS();
    }
    outcomes.add(new Outcome(strategy, "sim", r.jobs().size(), r.averageJct(), last - first, r.meanEfficiency(),
        r.seriesTime(), busy, r.seriesEfficiency(), perGpu, jct));
  }

  private static double stepAt(List<ClusterBench.Sample> samples, long t) {
    ClusterBench.Sample before = null;
    for (ClusterBench.Sample s : samples) {
      if (s.timeMs() <= t) {
        before = s;
      } else {
        if (before == null) {
          return 0;
        }
        double w = (t - before.timeMs()) / (double) (s.timeMs() - before.timeMs());
        return before.step() + w * (s.step() - before.step());
      }
    }
    return before == null ? 0 : before.step();
  }

  /** The workers over {@code [from, to)}, time-weighted, each reading holding until the next. */
  private static double meanWorkers(List<ClusterBench.Sample> samples, long from, long to) {
    double sum = 0;
    for (int i = 0; i < samples.size(); i++) {
      long start = Math.max(from, samples.get(i).timeMs());
      long end = Math.min(to, i + 1 < samples.size() ? samples.get(i + 1).timeMs() : to);
      if (end > start) {
        sum += samples.get(i).workers() * (double) (end - start);
      }
    }
    return sum / (to - from);
  }

  /** {@code docs/benchmarks/cluster.csv}: the issue's columns. */
  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Outcome o : outcomes) {
      rows.add(List.of(o.strategy(), o.runner(), o.jobs(), BenchCsv.fixed(1, o.avgJctS()),
          BenchCsv.fixed(1, o.makespanS()), BenchCsv.fixed(4, o.meanClusterEfficiency())));
    }
    BenchCsv.write(csv, "strategy,runner,jobs,avg_jct_s,makespan_s,mean_cluster_efficiency", rows);
  }

  /** The series behind the charts, one row per bucket. */
  public void writeSeriesCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Outcome o : outcomes) {
      for (int b = 0; b < o.timeS().length; b++) {
        rows.add(List.of(o.strategy(), o.runner(), BenchCsv.fixed(0, o.timeS()[b]), BenchCsv.fixed(2, o.gpusBusy()[b]),
            BenchCsv.fixed(4, o.clusterEfficiency()[b]), BenchCsv.fixed(4, o.perGpuEfficiency()[b])));
      }
    }
    BenchCsv.write(csv, "strategy,runner,t_s,gpus_busy,cluster_efficiency,per_gpu_efficiency", rows);
  }

  /** Every job's JCT per strategy and runner. */
  public void writeJobsCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Outcome o : outcomes) {
      for (int i = 0; i < o.jctS().length; i++) {
        ClusterPlan.PlannedJob j = plan.jobs().get(i);
        rows.add(List.of(o.strategy(), o.runner(), i, j.model(), j.submitOffsetMs() / 1000,
            BenchCsv.fixed(1, o.jctS()[i])));
      }
    }
    BenchCsv.write(csv, "strategy,runner,job,model,submit_s,jct_s", rows);
  }

  /** Cluster efficiency (top) or per-GPU efficiency over time, a line per strategy and runner. */
  public void writeChart(Path png, boolean perGpu) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeriesCollection data = new XYSeriesCollection();
    for (Outcome o : outcomes) {
      XYSeries s = new XYSeries(o.strategy() + " (" + o.runner() + ")");
      double[] v = perGpu ? o.perGpuEfficiency() : o.clusterEfficiency();
      for (int b = 0; b < v.length; b++) {
        s.add(o.timeS()[b] + bucketS / 2, v[b]);
      }
      data.addSeries(s);
    }
    String what = perGpu ? "average per-GPU efficiency" : "cluster efficiency";
    JFreeChart chart = ChartFactory.createXYLineChart("Static against Elastic: " + what + " ("
        + plan.jobs().size() + " jobs of " + plan.gpus() + " GPUs, one every " + plan.intervalMs() / 1000 + " s, "
        + CLUSTER_GPUS + " GPUs)", "seconds since the first job", what, data);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    Color[] palette = {new Color(0x7f7f7f), new Color(0x1f77b4), new Color(0xbbbbbb), new Color(0x9ecae1)};
    for (int i = 0; i < Math.min(palette.length, outcomes.size()); i++) {
      plot.getRenderer().setSeriesPaint(i, palette[i]);
    }
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 550);
  }

  public String table() {
    StringBuilder s = new StringBuilder("| strategy | runner | jobs | average JCT (s) | makespan (s) | mean cluster efficiency |\n"
        + "|---|---|---:|---:|---:|---:|\n");
    for (Outcome o : outcomes) {
      s.append(String.format(Locale.ROOT, "| %s | %s | %d | %.1f | %.1f | %.3f |%n", o.strategy(), o.runner(), o.jobs(),
          o.avgJctS(), o.makespanS(), o.meanClusterEfficiency()));
    }
    return s.toString();
  }
}
