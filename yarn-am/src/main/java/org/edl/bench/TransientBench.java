package org.edl.bench;

import java.io.PrintWriter;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobControlConnection;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.Growth;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.job.ScaleMode;

/**
 * {@code edl bench transient} (the EDL paper's Figure 10): an {@code emulated} job holds 4 GPUs of
 * the embedded cluster (2 nodes x 4 GPUs); {@code k} more GPUs are idle for a period, then another
 * user's job takes them for a period, and so on. Another user's job holds the {@code 4 - k} GPUs
 * left over throughout. The job runs three times per {@code k}, on the same schedule: never
 * growing (baseline), growing and giving back stop-free (EDL), and the same through stop-resume.
 * The job's samples come from its workers' timelines ({@link TransientAnalysis}).
 *
 * <p>Every job here uses {@code --emulated-sync profile}: two cores cannot all-reduce ResNet-50's
 * 25.5 M parameters among 8 members at the profile's pace, so each step waits the profile's sync
 * time instead; the broadcast to newcomers and stop-resume's checkpoints move the real 102 MB.
 */
public final class TransientBench {
  static final String OWNER_OF_IDLE_GPUS = "alice";
  static final String HOLDER_OF_THE_REST = "carol";
  public static final int JOB_GPUS = 4;
  private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(4);

  /** What to run; see {@link org.edl.devtools.BenchCommand.Transient} for the flags. */
  public record Options(List<Integer> idleGpus, Duration period, int cycles, String model, int perWorkerBatch,
      long holdOffMs, double growEfficiency) {}

  /** The modes compared, in the order they run. */
  public enum Mode {
    BASELINE("baseline"), EDL("edl"), STOP_RESUME("stop-resume");

    final String csv;

    Mode(String csv) {
      this.csv = csv;
    }

    public String csv() {
      return csv;
    }
  }

  /**
   * One run: the job's timelines, and the schedule it trained under.
   *
   * @param idle the idle phases, each {@code [start, end)} in wall-clock ms, all inside the window
   */
  public record Run(int idleGpus, Mode mode, long windowStartMs, long windowEndMs, List<long[]> idle,
      TransientAnalysis analysis) {
    double idleSeconds() {
      return idle.stream().mapToLong(p -> p[1] - p[0]).sum() / 1000.0;
    }

    double windowSeconds() {
      return (windowEndMs - windowStartMs) / 1000.0;
    }

    double throughput() {
      return analysis.throughput(windowStartMs, windowEndMs);
    }
  }

  private final Options options;
  private final PrintWriter out;

  public TransientBench(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  public List<Run> run() throws Exception {
    return BenchJob.onEmbeddedCluster("synthetic:samples=64,features=2,classes=2,seed=1", "unused.libsvm", out,
        (conf, yarn, zk, data) -> {
          makeHome(conf, OWNER_OF_IDLE_GPUS);
          makeHome(conf, HOLDER_OF_THE_REST);
          List<Run> runs = new ArrayList<>();
          for (int k : options.idleGpus()) {
            runs.addAll(runIdle(conf, yarn, zk, k));
          }
          return runs;
        });
  }

  private List<Run> runIdle(Configuration conf, YarnClient yarn, CuratorFramework zk, int k) throws Exception {
    List<Run> runs = new ArrayList<>();
    SubmittedJob rest = null;
    if (JOB_GPUS - k > 0) {
      rest = as(conf, HOLDER_OF_THE_REST, other("edl-bench-transient-rest", JOB_GPUS - k));
      awaitWorkers(conf, yarn, rest, JOB_GPUS - k, "the rest");
      say("[" + k + " idle] " + HOLDER_OF_THE_REST + " holds the other " + (JOB_GPUS - k) + " GPUs (" + rest.appId() + ")");
    }
    try {
      for (Mode mode : Mode.values()) {
        runs.add(runMode(conf, yarn, zk, k, mode));
      }
    } finally {
      if (rest != null) {
        yarn.killApplication(rest.appId());
      }
    }
    return runs;
  }

  private Run runMode(Configuration conf, YarnClient yarn, CuratorFramework zk, int k, Mode mode) throws Exception {
    String name = "[" + k + " idle, " + mode.csv() + "]";
    SubmittedJob taker = as(conf, OWNER_OF_IDLE_GPUS, other("edl-bench-transient-taker", k));
    awaitWorkers(conf, yarn, taker, k, name + " the other user");
    Growth growth = switch (mode) {
      case BASELINE -> Growth.OFF;
      case EDL -> new Growth(true, options.growEfficiency(), options.holdOffMs(), ScaleMode.EDL);
      case STOP_RESUME -> new Growth(true, options.growEfficiency(), options.holdOffMs(), ScaleMode.STOP_RESUME);
    };
    JobSpec spec = emulated("edl-bench-transient-" + mode.csv(), JOB_GPUS, JOB_GPUS + k).growth(growth)
        // Stop-resume's checkpoints only: periodic ones would land in some runs' windows and not others'.
        .checkpoints(0, 0, 1).build();
    SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec);
    say(name + " submitted " + job.appId() + " (" + JOB_GPUS + " workers, max " + (JOB_GPUS + k) + ")");
    List<long[]> idle = new ArrayList<>();
    long start;
    long end;
    try (JobControlConnection connection = BenchJob.connect(conf, yarn, job)) {
      BenchJob.awaitSize(connection.control(), SETTLE_TIMEOUT, JOB_GPUS, 10, name);
      start = System.currentTimeMillis();
      long period = options.period().toMillis();
      for (int c = 0; c < options.cycles(); c++) {
        long idleFrom = start + 2 * c * period;
        yarn.killApplication(taker.appId());
        say(String.format(Locale.ROOT, "%s cycle %d/%d: %d GPUs idle for %d s", name, c + 1, options.cycles(), k,
            period / 1000));
        sleepUntil(idleFrom + period);
        idle.add(new long[] {idleFrom, idleFrom + period});
        taker = as(conf, OWNER_OF_IDLE_GPUS, other("edl-bench-transient-taker", k));
        say(String.format(Locale.ROOT, "%s cycle %d/%d: %s takes them back for %d s (the job: %s)", name, c + 1,
            options.cycles(), OWNER_OF_IDLE_GPUS, period / 1000, BenchJob.describe(connection.control())));
        sleepUntil(idleFrom + 2 * period);
      }
      end = System.currentTimeMillis();
      endWhenSteady(zk, job, name);
    } finally {
      yarn.killApplication(taker.appId());
    }
    BenchJob.awaitFinished(yarn, job);
    TransientAnalysis analysis = new TransientAnalysis(Timelines.read(job.spec().output(), conf),
        spec.training().batchSize());
    Run run = new Run(k, mode, start, end, idle, analysis);
    say(String.format(Locale.ROOT, "%s %.1f samples/s over %.0f s (%.0f s of it with %d idle GPUs)", name,
        run.throughput(), run.windowSeconds(), run.idleSeconds(), k));
    return run;
  }

  /**
   * Ends the job once it can take the order: a stop-resume job may be in the middle of a restart
   * at the end of the window (what it trains after the window does not count).
   */
  private void endWhenSteady(CuratorFramework zk, SubmittedJob job, String name) throws Exception {
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    while (true) {
      try {
        BenchJob.endJob(zk, job);
        return;
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        say(name + " the job cannot end yet (" + e.getMessage() + "); trying again");
        Thread.sleep(2000);
      }
    }
  }

  /** Another user's job: exactly {@code workers} GPUs, never changing, training until killed. */
  private JobSpec other(String name, int workers) {
    return emulated(name, workers, workers).growth(Growth.OFF).checkpoints(0, 0, 1).build();
  }

  private org.edl.job.JobSpecBuilder emulated(String name, int workers, int max) {
    return JobSpec.builder().name(name).model(options.model())
        .data("synthetic:samples=65536,features=2,classes=2,seed=1").format("auto").workers(workers)
        .minWorkers(workers).maxWorkers(max).gpusPerWorker(1).workerMemoryMb(1024).workerVcores(1)
        .steps(10_000_000L).batchSize(options.perWorkerBatch()).batchRule(BatchRule.FIXED_PER_WORKER)
        .learningRate(0.1).hidden(1).seed(1).backend("emulated").profileSync(true).timeline(true);
  }

  private static SubmittedJob as(Configuration conf, String user, JobSpec spec) throws Exception {
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
    return ugi.doAs((PrivilegedExceptionAction<SubmittedJob>) () -> {
      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(conf);
      yarn.start();
      try {
        return new JobSubmitter(conf, yarn).submit(spec);
      } finally {
        yarn.stop();
      }
    });
  }

  private void awaitWorkers(Configuration conf, YarnClient yarn, SubmittedJob job, int workers, String name)
      throws Exception {
    try (JobControlConnection connection = BenchJob.connect(conf, yarn, job)) {
      BenchJob.awaitSize(connection.control(), SETTLE_TIMEOUT, workers, 2, name);
    }
    ApplicationReport r = yarn.getApplicationReport(job.appId());
    if (r.getYarnApplicationState() != YarnApplicationState.RUNNING) {
      throw new IllegalStateException(name + ": " + job.appId() + " is " + r.getYarnApplicationState());
    }
  }

  /** The user's home directory, as an administrator makes it on a real cluster. */
  private static void makeHome(Configuration conf, String user) throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path home = new Path("/user/" + user);
    fs.mkdirs(home);
    fs.setOwner(home, user, null);
  }

  private static void sleepUntil(long wallMs) throws InterruptedException {
    long left;
    while ((left = wallMs - System.currentTimeMillis()) > 0) {
      Thread.sleep(Math.min(left, 1000));
    }
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
