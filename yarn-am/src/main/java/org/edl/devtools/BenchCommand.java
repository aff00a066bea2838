package org.edl.devtools;

import java.util.List;
import java.util.concurrent.Callable;
import org.edl.worker.bench.AllReduceBench;
import org.edl.worker.bench.AllReduceBenchOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code edl bench ...}: benchmarks, each one a subcommand. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run a benchmark.",
    subcommands = {BenchCommand.AllReduce.class, BenchCommand.Scaling.class, BenchCommand.Faults.class,
        BenchCommand.Chaos.class, BenchCommand.Simulator.class, BenchCommand.Transient.class,
        BenchClusterCommand.class, SoakCommand.class, ClusterThreadsCommand.class, BenchCommand.Pytorch.class,
        PartitionsCommand.class})
public final class BenchCommand implements Runnable {
  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * {@code edl bench allreduce}: the benchmark's own options, mixed in; a bad value is reported
   * like every other edl user error (one line, exit 2).
   */
  @Command(name = "allreduce", mixinStandardHelpOptions = true, sortOptions = false, sortSynopsis = false,
      description = "Ring all-reduce against gather-broadcast and the loopback limit; writes allreduce.csv"
          + " and allreduce.png. With --hosts N: our ring against gloo between N simulated hosts at a capped"
          + " link rate; writes allreduce-hosts.csv and allreduce-hosts.png.")
  static final class AllReduce implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;
    @Mixin
    AllReduceBenchOptions.Flags options;
    @Mixin
    HostsAllReduceFlags hosts;

    @Override
    public Integer call() throws Exception {
      if (!hosts.betweenHosts()) {
        hosts.checkUnused(spec);
        AllReduceBench.run(options.toOptions(), System.out);
        return 0;
      }
      org.edl.bench.hosts.HostsAllReduceOptions between = hosts.toOptions(spec, options.toOptions());
      var why = org.edl.cluster.hosts.HostNetwork.unavailable();
      if (why.isPresent()) {
        throw new org.edl.job.InvalidInputException("hosts", hosts.hosts, why.get());
      }
      new org.edl.bench.hosts.HostsAllReduceBench(between, spec.commandLine().getOut()).run();
      return 0;
    }
  }

  /**
   * {@code edl bench scaling}: EDL against stop-resume on the same job on the embedded cluster
   * (4 -> 5, 5 -> 4, profiling 8 -> 2); results to the console, a CSV and a chart.
   */
  @Command(name = "scaling", mixinStandardHelpOptions = true, description = "Stop-free scaling"
      + " against stop-resume on the embedded cluster: 4->5, 5->4 workers and profiling 8..2.")
  static final class Scaling implements Callable<Integer> {
    @picocli.CommandLine.Option(names = "--backend", defaultValue = "cpu",
        description = "cpu or emulated (default: ${DEFAULT-VALUE}).")
    String backend;
    @picocli.CommandLine.Option(names = "--model", defaultValue = "mlp",
        description = "mlp or softmax with cpu; a profiled model with emulated (default: ${DEFAULT-VALUE}).")
    String model;
    @picocli.CommandLine.Option(names = "--batch", defaultValue = "256",
        description = "Per-worker batch (default: ${DEFAULT-VALUE}).")
    int batch;
    @picocli.CommandLine.Option(names = "--hidden", defaultValue = "256",
        description = "Hidden units of the MLP (default: ${DEFAULT-VALUE}).")
    int hidden;
    @picocli.CommandLine.Option(names = "--profile-batches", defaultValue = "10",
        description = "Batches at each size while profiling (default: ${DEFAULT-VALUE}).")
    int profileBatches;
    @picocli.CommandLine.Option(names = "--out", defaultValue = "docs/benchmarks",
        description = "Where scaling.csv and scaling.png go (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path out;
    @picocli.CommandLine.Option(names = "--keep-timelines", description = "Copy every worker's timeline"
        + " (one CSV per container: process start, registered, ready, each batch) of the two jobs into"
        + " DIR/edl and DIR/stop-resume.")
    java.nio.file.Path keepTimelines;
    @picocli.CommandLine.Option(names = "--replot", description = "Redraw table and chart from this"
        + " scaling.csv of an earlier run instead of running the benchmark.")
    java.nio.file.Path replot;

    @Override
    public Integer call() throws Exception {
      java.io.PrintWriter console = new java.io.PrintWriter(System.out, true);
      String named = backend.equals("emulated") ? "emulated (profile of " + model + ")" : backend + " (" + model + ")";
      org.edl.bench.ScalingReport report;
      if (replot != null) {
        report = org.edl.bench.ScalingReport.readCsv(replot);
      } else {
        report = new org.edl.bench.ScalingReport(new org.edl.bench.ScalingBench(
            new org.edl.bench.ScalingBench.Options(backend, model, batch, hidden, profileBatches, 20,
                java.time.Duration.ofMinutes(5), keepTimelines), console).run());
      }
      report.writeCsv(out.resolve("scaling.csv"));
      report.writeChart(out.resolve("scaling.png"), named);
      console.println(report.table(named));
      console.println("Wrote " + out.resolve("scaling.csv") + " and " + out.resolve("scaling.png"));
      return 0;
    }
  }

  /**
   * {@code edl bench pytorch}: one PyTorch script changed 4 -> 5 -> 4 workers under EDL (embedded
   * cluster) and under torchrun's elastic agents; stop time and resource loss of each change.
   */
  @Command(name = "pytorch", mixinStandardHelpOptions = true, description = "A PyTorch script scaled 4->5->4"
      + " under EDL (stop-free, on the embedded cluster) and under torchrun --nnodes=4:5 (every worker"
      + " restarts): the stop time of the workers that stay and the resource loss. Writes pytorch.csv.")
  static final class Pytorch implements Callable<Integer> {
    @picocli.CommandLine.Option(names = "--python", defaultValue = "/usr/bin/python3",
        description = "Interpreter with torch and thrift (default: ${DEFAULT-VALUE}).")
    String python;
    @picocli.CommandLine.Option(names = "--hidden", defaultValue = "512",
        description = "Hidden units of the script's MLP (default: ${DEFAULT-VALUE}).")
    int hidden;
    @picocli.CommandLine.Option(names = "--batch", defaultValue = "256",
        description = "Global batch (default: ${DEFAULT-VALUE}).")
    int batch;
    @picocli.CommandLine.Option(names = "--steady", defaultValue = "100",
        description = "Steps at each size before the next change (default: ${DEFAULT-VALUE}).")
    int steady;
    @picocli.CommandLine.Option(names = "--out", defaultValue = "docs/benchmarks",
        description = "Where pytorch.csv goes (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path out;

    @Override
    public Integer call() throws Exception {
      java.io.PrintWriter console = new java.io.PrintWriter(System.out, true);
      List<org.edl.bench.PytorchBench.Row> rows = new org.edl.bench.PytorchBench(
          new org.edl.bench.PytorchBench.Options(python, hidden, batch, steady, java.time.Duration.ofMinutes(5)),
          console).run();
      org.edl.bench.PytorchBench.writeCsv(rows, out.resolve("pytorch.csv"));
      console.println(org.edl.bench.PytorchBench.table(rows));
      console.println("Wrote " + out.resolve("pytorch.csv"));
      return 0;
    }
  }

  /**
   * {@code edl bench transient}: an emulated job on 4 GPUs while 1, 2 and 4 more are idle, then
   * taken back, periodically: baseline, EDL and stop-resume against Ideal (the paper's Figure 10).
   */
  @Command(name = "transient", mixinStandardHelpOptions = true, description = "An emulated 4-GPU job while"
      + " other GPUs are idle, then taken back by another user, every period: its throughput never growing,"
      + " growing stop-free (EDL) and by stop-resume, against Ideal. Writes transient.csv,"
      + " transient-runs.csv and transient.png.")
  static final class Transient implements Callable<Integer> {
    @picocli.CommandLine.Option(names = "--idle-gpus", defaultValue = "1,2,4", split = ",",
        description = "Numbers of idle GPUs, each a run of all three modes (default: ${DEFAULT-VALUE}).")
    List<Integer> idleGpus;
    @picocli.CommandLine.Option(names = "--period-s", defaultValue = "60",
        description = "Seconds the GPUs stay idle, and then taken (default: ${DEFAULT-VALUE}; the paper: 240).")
    int periodS;
    @picocli.CommandLine.Option(names = "--cycles", defaultValue = "2",
        description = "Idle-then-taken cycles per run (default: ${DEFAULT-VALUE}).")
    int cycles;
    @picocli.CommandLine.Option(names = "--model", defaultValue = "imagenet",
        description = "Profiled model to emulate (default: ${DEFAULT-VALUE}, ResNet-50).")
    String model;
    @picocli.CommandLine.Option(names = "--batch", defaultValue = "128",
        description = "Per-GPU batch (default: ${DEFAULT-VALUE}).")
    int batch;
    @picocli.CommandLine.Option(names = "--grow-efficiency", defaultValue = "0",
        description = "The job's --grow-efficiency (default: ${DEFAULT-VALUE}: the paper's rule, grow while the"
            + " next worker does not lower the throughput).")
    String growEfficiency;
    @picocli.CommandLine.Option(names = "--hold-off-ms", defaultValue = "10000",
        description = "The job's --grow-hold-off-ms (default: ${DEFAULT-VALUE}: shorter than the period).")
    long holdOffMs;
    @picocli.CommandLine.Option(names = "--out", defaultValue = "docs/benchmarks",
        description = "Where the CSVs and the chart go (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path out;
    @picocli.CommandLine.Option(names = "--replot", description = "Redraw table and chart from this"
        + " transient-runs.csv of an earlier run instead of running the benchmark.")
    java.nio.file.Path replot;

    @Override
    public Integer call() throws Exception {
      java.io.PrintWriter console = new java.io.PrintWriter(System.out, true);
      for (int k : idleGpus) {
        if (k < 1 || k > org.edl.bench.TransientBench.JOB_GPUS) {
          throw new org.edl.job.InvalidInputException("idle-gpus", k, "must be 1 to "
              + org.edl.bench.TransientBench.JOB_GPUS + " (the embedded cluster has 8 GPUs, the job holds 4)");
        }
      }
      if (periodS < 10) {
        throw new org.edl.job.InvalidInputException("period-s", periodS, "must be at least 10 s");
      }
      if (cycles < 1) {
        throw new org.edl.job.InvalidInputException("cycles", cycles, "must be at least 1");
      }
      org.edl.bench.TransientReport report;
      if (replot != null) {
        report = org.edl.bench.TransientReport.readRunsCsv(replot);
      } else {
        console.println("Every job here is emulated with --emulated-sync profile: each step waits the profile's"
            + " gradient sync time instead of all-reducing the real gradient (the broadcast to newcomers and"
            + " stop-resume's checkpoints move the real size).");
        List<org.edl.bench.TransientBench.Run> runs = new org.edl.bench.TransientBench(
            new org.edl.bench.TransientBench.Options(idleGpus, java.time.Duration.ofSeconds(periodS), cycles, model,
                batch, holdOffMs, org.edl.job.Growth.efficiencyOf(growEfficiency)), console).run();
        report = org.edl.bench.TransientReport.of(runs, periodS, cycles, org.edl.bench.TransientBench.JOB_GPUS, batch);
      }
      report.writeCsv(out.resolve("transient.csv"));
      report.writeRunsCsv(out.resolve("transient-runs.csv"));
      report.writeChart(out.resolve("transient.png"), model);
      console.println(report.table());
      console.println("Wrote " + out.resolve("transient.csv") + ", " + out.resolve("transient-runs.csv") + " and "
          + out.resolve("transient.png"));
      return 0;
    }
  }

  /**
   * {@code edl bench faults}: a straggler in a 16-worker emulated job (detection, removal,
   * throughput before, during and after); results to the console, stragglers.csv and a chart.
   */
  @Command(name = "faults", mixinStandardHelpOptions = true, description = "A slow worker in an"
      + " emulated job: how fast the leader detects and removes it, and throughput before, during and after.")
  static final class Faults implements Callable<Integer> {
    @picocli.CommandLine.Option(names = "--workers", defaultValue = "16",
        description = "Workers of the emulated job (default: ${DEFAULT-VALUE}).")
    int workers;
    @picocli.CommandLine.Option(names = "--model", defaultValue = "cifar10",
        description = "Profiled model to emulate (default: ${DEFAULT-VALUE}).")
    String model;
    @picocli.CommandLine.Option(names = "--batch", defaultValue = "512",
        description = "Per-worker batch (default: ${DEFAULT-VALUE}).")
    int batch;
    @picocli.CommandLine.Option(names = "--speed", defaultValue = "0.75",
        description = "The straggler's speed as a fraction of the profiled one (default: ${DEFAULT-VALUE}).")
    double speed;
    @picocli.CommandLine.Option(names = "--straggler-factor", defaultValue = "1.2",
        description = "The leader's threshold, x the median compute time (default: ${DEFAULT-VALUE}).")
    double factor;
    @picocli.CommandLine.Option(names = "--straggler-batches", defaultValue = "10",
        description = "Consecutive slow batches before removal (default: ${DEFAULT-VALUE}).")
    int window;
    @picocli.CommandLine.Option(names = "--phase-batches", defaultValue = "20",
        description = "Batches measured before the slow-down and after the removal (default: ${DEFAULT-VALUE}).")
    int phaseBatches;
    @picocli.CommandLine.Option(names = "--profiles", description = "Directory of measured profiles"
        + " (default: the checkout's, see edl simulate --help).")
    java.nio.file.Path profiles;
    @picocli.CommandLine.Option(names = "--out", defaultValue = "docs/benchmarks",
        description = "Where stragglers.csv/png and recovery.csv/png go (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path out;
    @picocli.CommandLine.Option(names = "--part", defaultValue = "all",
        description = "stragglers, recovery or all (default: ${DEFAULT-VALUE}).")
    String part;
    @picocli.CommandLine.Option(names = "--checkpoint-every", defaultValue = "40",
        description = "Recovery: periodic checkpoint every N batches; the kill is halfway between two (default: ${DEFAULT-VALUE}).")
    int checkpointEvery;

    @Override
    public Integer call() throws Exception {
      java.io.PrintWriter console = new java.io.PrintWriter(System.out, true);
      if (!java.util.Set.of("all", "stragglers", "recovery").contains(part)) {
        throw new org.edl.job.InvalidInputException("part", part, "choose stragglers, recovery or all");
      }
      if (!part.equals("stragglers")) {
        org.edl.bench.RecoveryReport recovery = new org.edl.bench.RecoveryReport(new org.edl.bench.RecoveryBench(
            new org.edl.bench.RecoveryBench.Options(4, 256, 256, checkpointEvery, 20, java.time.Duration.ofMinutes(5)),
            console).run());
        recovery.writeCsv(out.resolve("recovery.csv"));
        recovery.writeChart(out.resolve("recovery.png"));
        console.println(recovery.table());
        console.println("Wrote " + out.resolve("recovery.csv") + " and " + out.resolve("recovery.png"));
      }
      if (part.equals("recovery")) {
        return 0;
      }
      if (!(speed > 0 && speed < 1)) {
        throw new org.edl.job.InvalidInputException("speed", speed, "must be between 0 and 1 (a slower worker)");
      }
      java.nio.file.Path dir = profiles != null ? profiles : org.edl.cli.SimulateCommand.defaultProfiles();
      org.edl.bench.StragglerBench.Result result = new org.edl.bench.StragglerBench(
          new org.edl.bench.StragglerBench.Options(workers, model, batch, speed, 10, phaseBatches, phaseBatches,
              factor, window, dir), console).run();
      org.edl.bench.StragglerReport report = new org.edl.bench.StragglerReport(result);
      report.writeCsv(out.resolve("stragglers.csv"));
      report.writeChart(out.resolve("stragglers.png"));
      console.println(report.table());
      console.println("Wrote " + out.resolve("stragglers.csv") + " and " + out.resolve("stragglers.png"));
      return 0;
    }
  }

  /**
   * {@code edl bench chaos}: one job per seed on the embedded cluster under a seeded schedule of
   * kills and pauses (worker, leader, AM); whether each ended as promised, and its longest
   * recovery; results to the console, chaos.csv and chaos.png.
   */
  @Command(name = "chaos", mixinStandardHelpOptions = true, description = "One job per seed under a seeded"
      + " random schedule of kills and pauses of workers, the leader and the AM: did each end as promised?")
  static final class Chaos implements Callable<Integer> {
    @picocli.CommandLine.Option(names = "--seeds", defaultValue = "" + org.edl.bench.chaos.ChaosBench.Options.DEFAULT_SEEDS,
        description = "Runs, one per seed (default: ${DEFAULT-VALUE}).")
    int seeds;
    @picocli.CommandLine.Option(names = "--first-seed", defaultValue = "1",
        description = "The first seed; the others follow it (default: ${DEFAULT-VALUE}).")
    long firstSeed;
    @picocli.CommandLine.Option(names = "--steps", defaultValue = "" + org.edl.bench.chaos.ChaosBench.Options.DEFAULT_STEPS,
        description = "Steps of each job (default: ${DEFAULT-VALUE}).")
    long steps;
    @picocli.CommandLine.Option(names = "--workers", defaultValue = "" + org.edl.bench.chaos.ChaosBench.Options.DEFAULT_WORKERS,
        description = "Workers of each job, 2 to 7 (default: ${DEFAULT-VALUE}).")
    int workers;
    @picocli.CommandLine.Option(names = "--max-worker-failures",
        defaultValue = "" + org.edl.bench.chaos.ChaosBench.Options.DEFAULT_MAX_WORKER_FAILURES,
        description = "The jobs' limit; no schedule costs more (default: ${DEFAULT-VALUE}).")
    int maxWorkerFailures;
    @picocli.CommandLine.Option(names = "--checkpoint-every",
        defaultValue = "" + org.edl.bench.chaos.ChaosBench.Options.DEFAULT_CHECKPOINT_EVERY,
        description = "Periodic checkpoint every N batches (default: ${DEFAULT-VALUE}).")
    int checkpointEvery;
    @picocli.CommandLine.Option(names = "--expected-seconds",
        defaultValue = "" + org.edl.bench.chaos.ChaosBench.Options.DEFAULT_EXPECTED_SECONDS,
        description = "A job's length without faults on this machine; faults fall between 20% and 70% of it"
            + " (default: ${DEFAULT-VALUE}).")
    double expectedSeconds;
    @picocli.CommandLine.Option(names = "--out", defaultValue = "docs/benchmarks",
        description = "Where chaos.csv and chaos.png go (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path out;
    @picocli.CommandLine.Option(names = "--replot", description = "Redraw the chart from this chaos.csv of an"
        + " earlier run instead of running the benchmark.")
    java.nio.file.Path replot;

    @Override
    public Integer call() throws Exception {
      java.io.PrintWriter console = new java.io.PrintWriter(System.out, true);
      org.edl.bench.chaos.ChaosReport report;
      if (replot != null) {
        report = ReplotFile.read(replot, org.edl.bench.chaos.ChaosReport::readCsv);
      } else {
        org.edl.bench.chaos.ChaosBench.Options options = org.edl.bench.chaos.ChaosBench.Options.of(seeds, firstSeed,
            steps, workers, maxWorkerFailures, checkpointEvery, expectedSeconds).validate();
        report = new org.edl.bench.chaos.ChaosReport(new org.edl.bench.chaos.ChaosBench(options, console).run());
      }
      report.writeCsv(out.resolve("chaos.csv"));
      report.writeChart(out.resolve("chaos.png"));
      console.println(report.summary());
      console.println("Wrote " + out.resolve("chaos.csv") + " and " + out.resolve("chaos.png"));
      return 0;
    }

  }

  /**
   * {@code edl bench simulator}: the trace simulator's wall time and peak heap per policy over the
   * whole Philly trace at each cluster size, and over 1/8, 1/4, 1/2 of it at the first size.
   */
  @Command(name = "simulator", mixinStandardHelpOptions = true, description = "Trace simulator: wall time and"
      + " peak heap per policy, whole trace and 1/8..1/2 of it; writes simulator.csv.")
  static final class Simulator implements Callable<Integer> {
    @picocli.CommandLine.Option(names = "--trace", description = "Trace (default: the checkout's"
        + " data/traces/philly-jobs.csv.gz).")
    java.nio.file.Path trace;
    @picocli.CommandLine.Option(names = "--profiles", description = "Profiles (default: the checkout's, see edl simulate --help).")
    java.nio.file.Path profiles;
    @picocli.CommandLine.Option(names = "--cluster-gpus", split = ",", defaultValue = "512,2490",
        description = "Cluster sizes; the first also gets the trace-length runs (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;
    @picocli.CommandLine.Option(names = "--policy", split = ",", defaultValue = "fifo,tiresias,elastic-tiresias,fair",
        description = "Policies (default: ${DEFAULT-VALUE}).")
    List<String> policies;
    @picocli.CommandLine.Option(names = "--out", defaultValue = "docs/benchmarks",
        description = "Where simulator.csv goes (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path out;

    @Override
    public Integer call() throws Exception {
      java.nio.file.Path p = profiles == null ? org.edl.cli.SimulateCommand.defaultProfiles() : profiles;
      java.nio.file.Path t = trace == null
          ? java.nio.file.Path.of(System.getProperty("edl.home", ".")).toAbsolutePath().resolve("data/traces/philly-jobs.csv.gz")
          : trace;
      org.edl.scheduler.sim.SimulatorBench.run(t, p, sizes, policies, out, System.out, System.err);
      return 0;
    }
  }
}
