package org.edl.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobControlConnection;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.ScaleMode;

/**
 * {@code edl bench scaling}: in one run on the embedded cluster, the same job changes its size
 * with EDL and then with stop-resume: 4 -> 5 workers, 5 -> 4, and profiling from 8 down to 2
 * workers with a fixed number of batches at each size. Costs come from the workers' own
 * timelines ({@link ScalingAnalysis}); this class only drives the job through the AM's
 * job-control endpoint, exactly as {@code edl scale-out} does.
 */
public final class ScalingBench {
  static final String DATA_SPEC = "synthetic:samples=16384,features=256,classes=10,seed=5";

  /** What to run; see {@link org.edl.devtools.BenchCommand.Scaling} for the flags. */
  /** {@code timelinesTo}: where each job's worker timelines are copied (one folder per mode); null: not kept. */
  public record Options(String backend, String model, int perWorkerBatch, int hidden,
      int profileBatches, int settleBatches, Duration phaseTimeout, java.nio.file.Path timelinesTo) {}

  /** One measured operation in one mode. */
  public record Result(String operation, ScaleMode mode, double stopSeconds, double endToEndSeconds,
      double lossGpuSeconds) {
    public String modeName() {
      return mode == ScaleMode.EDL ? "edl" : "stop-resume";
    }
  }

  private record Request(String operation, long atMs, int before, int after) {}

  private final Options options;
  private final PrintWriter out;

  public ScalingBench(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  public List<Result> run() throws Exception {
    return BenchJob.onEmbeddedCluster(DATA_SPEC, "scaling.libsvm", out, (conf, yarn, zk, data) -> {
      List<Result> results = new ArrayList<>();
      for (ScaleMode mode : List.of(ScaleMode.EDL, ScaleMode.STOP_RESUME)) {
        results.addAll(runJob(conf, yarn, zk, data, mode));
      }
      return results;
    });
  }

  private List<Result> runJob(Configuration conf, YarnClient yarn, CuratorFramework zk, String data,
      ScaleMode mode) throws Exception {
    String name = mode == ScaleMode.EDL ? "edl" : "stop-resume";
    JobSpec spec = JobSpec.builder().name("edl-bench-scaling-" + name).model(options.model()).data(data)
        .format("libsvm").workers(4).minWorkers(2).maxWorkers(8).gpusPerWorker(1).workerMemoryMb(768)
        .workerVcores(1).steps(10_000_000L).batchSize(options.perWorkerBatch())
        .batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(options.hidden()).seed(1)
        .backend(options.backend())
        // No periodic checkpoints: their writes would land in some changes' windows and not others.
        .checkpoints(0, 0, 1).timeline(true).build();
    SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec);
    say("[" + name + "] submitted " + job.appId() + " (4 workers, backend " + options.backend() + ")");
    List<Request> requests = new ArrayList<>();
    List<Request> profile = new ArrayList<>();
    long profileStart;
    try (JobControlConnection connection = BenchJob.connect(conf, yarn, job)) {
      JobControl.Iface control = connection.control();
      BenchJob.awaitSize(control, options.phaseTimeout(), 4, options.settleBatches(), name);

      requests.add(new Request("scale-out", now(), 4, 5));
      control.scaleOut(1, mode);
      BenchJob.awaitSize(control, options.phaseTimeout(), 5, options.settleBatches(), name);

      requests.add(new Request("scale-in", now(), 5, 4));
      control.scaleIn(1, List.of(), mode);
      BenchJob.awaitSize(control, options.phaseTimeout(), 4, options.settleBatches(), name);

      say("[" + name + "] profiling: to 8 workers first");
      control.scaleOut(4, mode);
      BenchJob.awaitSize(control, options.phaseTimeout(), 8, 1, name);
      profileStart = now();
      for (int n = 8; n >= 2; n--) {
        BenchJob.awaitSize(control, options.phaseTimeout(), n, options.profileBatches(), name);
        if (n > 2) {
          profile.add(new Request("profile", now(), n, n - 1));
          control.scaleIn(1, List.of(), mode);
        }
      }
      BenchJob.endJob(zk, job);
    }
    BenchJob.awaitFinished(yarn, job);
    if (options.timelinesTo() != null) {
      java.nio.file.Path to = options.timelinesTo().resolve(name);
      Timelines.copy(job.spec().output(), conf, to);
      say("[" + name + "] worker timelines copied to " + to);
    }
    ScalingAnalysis analysis = new ScalingAnalysis(Timelines.read(job.spec().output(), conf));
    List<Result> results = new ArrayList<>();
    for (Request r : requests) {
      ScalingAnalysis.Cost c = analysis.cost(r.atMs(), r.before(), r.after(), spec.resources().gpusPerWorker());
      results.add(new Result(r.operation(), mode, c.stopSeconds(), c.endToEndSeconds(), c.lossGpuSeconds()));
      if (r.after() > r.before()) {
        ScalingAnalysis.NewcomerStart s = analysis.newcomerStart(c.step());
        say(String.format(Locale.ROOT, "[%s] %-9s %d started worker(s), slowest from its JVM's start: registered"
            + " %.2f s, ready %.2f s, first batch %.2f s", name, r.operation(), s.newcomers(), s.registeredSeconds(),
            s.readySeconds(), s.firstBatchSeconds()));
      }
    }
    double stop = 0;
    double loss = 0;
    long lastChange = -1;
    for (Request r : profile) {
      ScalingAnalysis.Cost c = analysis.cost(r.atMs(), r.before(), r.after(), spec.resources().gpusPerWorker());
      stop += c.stopSeconds();
      loss += c.lossGpuSeconds();
      lastChange = c.step();
    }
    // The profile ends with its last batch at the smallest size.
    long endMs = analysis.stepEndMs(lastChange + options.profileBatches() - 1);
    results.add(new Result("profile", mode, stop, (endMs - profileStart) / 1000.0, loss));
    results.stream().filter(r -> r.mode() == mode).forEach(r -> say(String.format(Locale.ROOT,
        "[%s] %-9s stop %.2f s, end-to-end %.2f s, loss %.2f GPU-s", name, r.operation(),
        r.stopSeconds(), r.endToEndSeconds(), r.lossGpuSeconds())));
    return results;
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
