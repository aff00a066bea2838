package org.edl.bench.soak;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.bench.BenchJob;
import org.edl.client.JobControlConnection;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ScaleMode;
import org.edl.thrift.WorkerPlacement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code edl bench soak}: one job on the embedded cluster changes its size {@code operations}
 * times while it trains (a seeded walk between its minimum and maximum: scale-out by one, or
 * scale-in of one worker, sometimes named at random so that the leader too hands over), and
 * after every {@code sampleEvery} operations the {@link SoakProbe} records what the processes,
 * ZooKeeper and HDFS hold. At the end the job stops for a restart and {@link SoakChecks} reads
 * from the workers' timelines whether every sample position was trained once and the last ring
 * ended with one set of parameters. Migration is left out: the embedded cluster's two nodes are
 * one host.
 */
public final class SoakBench {
  private static final Logger LOG = LoggerFactory.getLogger(SoakBench.class);
  static final String DATA_SPEC = "synthetic:samples=8192,features=64,classes=10,seed=5";
  private static final int MAX_REFUSALS = 5;

  /**
   * What to run.
   *
   * @param operations  scale operations in all
   * @param sampleEvery a sample after every this many (and one before the first)
   * @param workers     the job's first size; it walks between {@code minWorkers} and {@code maxWorkers}
   * @param backend     {@code cpu} (default: parameters that change, so their equality at the end means something) or {@code emulated}
   * @param model       mlp (256 hidden units) or softmax on the CPU, a profiled model when emulated
   * @param seed        of the walk
   * @param opTimeout   for one operation to be done (the ring at its new size, two batches trained)
   * @param budget      no operation starts after this much time (zero: no limit); the run then
   *                    samples, stops the job and checks it as after the last operation
   */
  public record Options(int operations, int sampleEvery, int workers, int minWorkers, int maxWorkers, String backend,
      String model, long seed, Duration opTimeout, Duration budget) {
    public static final int DEFAULT_OPERATIONS = 1_000;
    public static final int DEFAULT_SAMPLE_EVERY = 100;

    public static Options of(int operations, int sampleEvery, String backend, String model, long seed,
        Duration budget) {
      return new Options(operations, sampleEvery, 4, 2, 6, backend, model, seed, Duration.ofMinutes(3), budget)
          .validate();
    }

    Options validate() {
      if (operations < 1) {
        throw new InvalidInputException("--operations", operations, "at least 1");
      }
      if (sampleEvery < 1 || sampleEvery > operations) {
        throw new InvalidInputException("--sample-every", sampleEvery, "between 1 and --operations (" + operations + ")");
      }
      if (budget.isNegative()) {
        throw new InvalidInputException("--max-minutes", budget.toMinutes(), "zero (no limit) or more");
      }
      if (!List.of("cpu", "emulated").contains(backend)) {
        throw new InvalidInputException("--backend", backend, "choose cpu or emulated");
      }
      return this;
    }
  }

  /** What a run found: the samples in order, and the end-of-run checks. */
  public record Result(List<SoakSample> samples, SoakChecks.Verdict checks, String appId) {}

  private final Options options;
  private final PrintWriter out;

  public SoakBench(Options options, PrintWriter out) {
    this.options = options.validate();
    this.out = out;
  }

  public Result run() throws Exception {
    return BenchJob.onEmbeddedCluster(DATA_SPEC, "soak.libsvm", out, this::runJob);
  }

  JobSpec spec(String data) {
    return JobSpec.builder().name("edl-bench-soak").model(options.model()).data(data).format("libsvm")
        .workers(options.workers()).minWorkers(options.minWorkers()).maxWorkers(options.maxWorkers())
        .gpusPerWorker(1).workerMemoryMb(768).workerVcores(1).steps(1_000_000_000L).batchSize(64)
        .batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(256).seed(1).backend(options.backend())
        // Periodic checkpoints, two kept: pruning is part of what must not leak.
        .checkpoints(500, 0, 2).timeline(true).build();
  }

  private Result runJob(Configuration conf, YarnClient yarn, CuratorFramework zk, String data) throws Exception {
    SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec(data));
    say("Soak: submitted " + job.appId() + " (" + options.workers() + " workers, " + options.backend() + " "
        + options.model() + "); " + options.operations() + " scale operations between " + options.minWorkers()
        + " and " + options.maxWorkers() + " workers, a sample every " + options.sampleEvery());
    List<SoakSample> samples = new ArrayList<>();
    Random walk = new Random(options.seed());
    SoakProbe probe = new SoakProbe(conf, yarn, zk, job);
    long started = System.nanoTime();
    try (JobControlConnection connection = BenchJob.connect(conf, yarn, job)) {
      JobControl.Iface control = connection.control();
      int size = options.workers();
      JobStatus status = BenchJob.awaitSize(control, options.opTimeout(), size, 5, "soak");
      samples.add(report(probe.sample(0, status), started));
      long budgetEnd = options.budget().isZero() ? Long.MAX_VALUE : started + options.budget().toNanos();
      int done = 0;
      for (int op = 1; op <= options.operations(); op++) {
        if (System.nanoTime() > budgetEnd) {
          say("Soak: the " + options.budget().toMinutes() + "-minute budget is spent after " + done + " operations");
          break;
        }
        boolean grow = size == options.minWorkers() || size < options.maxWorkers() && walk.nextBoolean();
        // A third of the scale-ins name a worker at random (the leader among them); the others
        // let the AM pick, newest first.
        String named = !grow && walk.nextInt(3) == 0 ? pick(status, walk) : null;
        long opStart = System.nanoTime();
        apply(control, grow, named, op);
        size += grow ? 1 : -1;
        status = BenchJob.awaitSize(control, options.opTimeout(), size, 2, "soak");
        done = op;
        LOG.info("Operation {}: {} to {} workers in {} ms", op, grow ? "scale-out" : named == null ? "scale-in"
            : "scale-in of " + named, size, (System.nanoTime() - opStart) / 1_000_000);
        if (op % options.sampleEvery() == 0) {
          samples.add(report(probe.sample(op, status), started));
        }
      }
      if (done % options.sampleEvery() != 0) {
        samples.add(report(probe.sample(done, status), started));
      }
      BenchJob.endJob(zk, job);
    }
    BenchJob.awaitFinished(yarn, job);
    SoakChecks.Verdict verdict = SoakChecks.check(conf, job.spec().output(), job.spec().output() + "/bench-end");
    say(verdict.summary());
    return new Result(samples, verdict, job.appId().toString());
  }

  private static String pick(JobStatus status, Random walk) {
    List<WorkerPlacement> placements = status.isSetPlacements() ? status.getPlacements() : List.of();
    return placements.isEmpty() ? null : placements.get(walk.nextInt(placements.size())).getContainer();
  }

  /** One operation; a refusal (a change still settling) is retried after a pause. */
  private void apply(JobControl.Iface control, boolean grow, String named, int op) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        if (grow) {
          control.scaleOut(1, ScaleMode.EDL);
        } else {
          // By count, or by naming the container: not both.
          control.scaleIn(named == null ? 1 : 0, named == null ? List.of() : List.of(named), ScaleMode.EDL);
        }
        return;
      } catch (EdlError e) {
        if (attempt >= MAX_REFUSALS) {
          throw new IllegalStateException("operation " + op + " (" + (grow ? "scale-out" : "scale-in") + ") refused "
              + attempt + " times: " + e.getMessage(), e);
        }
        LOG.info("Operation {} refused ({}); retrying", op, e.getMessage());
        Thread.sleep(1_000L * attempt);
      }
    }
  }

  private SoakSample report(SoakSample s, long started) {
    say(String.format(Locale.ROOT, "[%5.0f s] %4d operations: %d workers at step %d; AM %d threads %d fds %.0f MB;"
        + " cluster %d threads %d fds %.0f MB; worker max %d threads %d fds %.0f MB; %d ZooKeeper nodes;"
        + " %d HDFS files (+%d timelines); %d container JVMs",
        (System.nanoTime() - started) / 1e9, s.operations(), s.workers(), s.step(), s.amThreads(), s.amFds(),
        s.amHeapMb(), s.clusterThreads(), s.clusterFds(), s.clusterHeapMb(), s.workerThreadsMax(), s.workerFdsMax(),
        s.workerHeapMaxMb(), s.zkNodes(), s.hdfsFiles(), s.timelineFiles(), s.processes()));
    return s;
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
