package org.edl.bench.partitions;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.edl.bench.chaos.RunCheck;
import org.edl.bench.chaos.RunChecks;
import org.edl.bench.chaos.RunEvidence;
import org.edl.client.JobSubmitter;
import org.edl.cluster.hosts.HostNetwork;
import org.edl.cluster.hosts.LinkCuts;
import org.edl.cluster.hosts.MultiHostCluster;
import org.edl.job.InvalidInputException;
import org.edl.job.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code edl bench partitions}: on the multi-host cluster (network namespaces on this machine,
 * Hadoop's own daemons), one training job per seed under that seed's {@link Partition}, each run
 * checked afterwards against what EDL promises: one acting leader, every sample once, the model
 * written, the failures the partition costs ({@link PartitionPromise}) and no more, and training
 * again soon after the heal. Whatever happens in one run, the next seed runs.
 */
public final class PartitionBench {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionBench.class);

  /**
   * What to run.
   *
   * @param seeds             runs, one per seed
   * @param firstSeed         the first seed; the others follow it
   * @param steps             steps of each job
   * @param workers           workers of each job (the cluster has one GPU more for a replacement)
   * @param syncTimeoutMs     the jobs' sync timeout
   * @param sessionTimeoutMs  the workers' ZooKeeper session timeout
   * @param amExpiryMs        the ResourceManager's AM liveness expiry
   * @param expectedSeconds   a job's training time without a cut: cuts fall between 20% and 60% of it
   * @param dir               where the cluster keeps its files (removed at the start)
   * @param yarnJar           the jar the jobs' containers run (the {@code yarn jar} distribution)
   */
  public record Options(int seeds, long firstSeed, long steps, int workers, long syncTimeoutMs,
      long sessionTimeoutMs, long amExpiryMs, double expectedSeconds, Path dir, Path yarnJar) {
    public static final int DEFAULT_SEEDS = 30;
    public static final long DEFAULT_STEPS = 3_000;
    public static final int DEFAULT_WORKERS = 3;
    public static final long DEFAULT_SYNC_TIMEOUT_MS = 4_000;
    public static final long DEFAULT_SESSION_TIMEOUT_MS = 10_000;
    public static final long DEFAULT_AM_EXPIRY_MS = 20_000;
    /** 3,000 steps of 3 workers took about 60 s on the shared 2-core machine here. */
    public static final double DEFAULT_EXPECTED_SECONDS = 60;

    int globalBatch() {
      return 256;
    }

    int checkpointEvery() {
      return 200;
    }

    int maxWorkerFailures() {
      return workers;
    }

    Duration runTimeout() {
      return Duration.ofMinutes(8);
    }

    public PartitionSchedule.Limits limits() {
      return new PartitionSchedule.Limits(0.2 * expectedSeconds, 0.6 * expectedSeconds, syncTimeoutMs / 1000.0,
          sessionTimeoutMs / 1000.0, amExpiryMs / 1000.0);
    }

    /** Refuses values no run could use; the message names the flag. */
    public Options validate() {
      atLeast("--seeds", seeds, 1);
      atLeast("--steps", steps, 1);
      atLeast("--workers", workers, 3); // a follower whose successor is another follower
      atLeast("--sync-timeout-ms", syncTimeoutMs, 1_000);
      atLeast("--session-timeout-ms", sessionTimeoutMs, 4_000);
      if (!(expectedSeconds >= 10) || Double.isInfinite(expectedSeconds)) {
        throw new InvalidInputException("--expected-seconds", expectedSeconds, "at least 10 seconds");
      }
      if (!java.nio.file.Files.isRegularFile(yarnJar)) {
        throw new InvalidInputException("--yarn-jar", yarnJar, "no such file; build it with mvn package");
      }
      return this;
    }

    private static void atLeast(String flag, long value, long min) {
      if (value < min) {
        throw new InvalidInputException(flag, value, "at least " + min);
      }
    }
  }

  private final Options options;
  private final PrintWriter out;

  public PartitionBench(Options options, PrintWriter out) {
    this.options = options.validate();
    this.out = out;
  }

  public List<PartitionRow> run() throws Exception {
    var unavailable = HostNetwork.unavailable();
    if (unavailable.isPresent()) {
      throw new IllegalStateException("the multi-host cluster cannot start here: " + unavailable.get());
    }
    PartitionSchedule.Limits limits = options.limits();
    say(String.format(Locale.ROOT, "Partitions: seeds %d..%d, %d workers, %d steps, cuts between %.0f s and %.0f s"
        + " of training; sync timeout %d ms, session timeout %d ms, AM expiry %d ms", options.firstSeed(),
        options.firstSeed() + options.seeds() - 1, options.workers(), options.steps(), limits.windowStartSeconds(),
        limits.windowEndSeconds(), options.syncTimeoutMs(), options.sessionTimeoutMs(), options.amExpiryMs()));
    org.apache.hadoop.fs.FileUtil.fullyDelete(options.dir().toFile());
    try (MultiHostCluster cluster = MultiHostCluster.builder().hosts(3 + options.workers() + 1).masterHosts(3)
        .gpusPerHost(1).hostMemoryMb(4096)
        .yarnSetting("yarn.nm.liveness-monitor.expiry-interval-ms", "20000")
        .yarnSetting("yarn.am.liveness-monitor.expiry-interval-ms", Long.toString(options.amExpiryMs()))
        .yarnSetting("yarn.log-aggregation-enable", "false")
        .hdfsSetting("dfs.namenode.heartbeat.recheck-interval", "10000")
        .dir(options.dir().resolve("cluster")).shippedConf(Path.of(System.getProperty("edl.home", "."), "conf"))
        .build().start()) {
      YarnConfiguration conf = cluster.configuration();
      ResourceUtils.resetResourceTypes(conf);
      // The client's settings: the session the workers get, and the jar their containers run.
      conf.set(WorkerEnv.ZK_SESSION_TIMEOUT_KEY, Long.toString(options.sessionTimeoutMs()));
      conf.set(JobSubmitter.APPLICATION_JAR_KEY, options.yarnJar().toAbsolutePath().toString());
      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(conf);
      yarn.start();
      try (CuratorFramework zk = CuratorFrameworkFactory.newClient(cluster.zooKeeperConnect(),
          new ExponentialBackoffRetry(200, 5))) {
        zk.start();
        LinkCuts cuts = new LinkCuts(cluster.network(), Clock.systemUTC());
        PartitionRun runner = new PartitionRun(options, cluster, conf, yarn, zk, cuts);
        List<PartitionRow> rows = new ArrayList<>();
        for (long seed = options.firstSeed(); seed < options.firstSeed() + options.seeds(); seed++) {
          Partition p = PartitionSchedule.forSeed(seed, limits);
          PartitionRow row;
          try {
            row = judge(p, runner.run(seed, p));
          } catch (InterruptedException e) {
            throw e;
          } catch (Exception e) {
            LOG.warn("Seed {}: the bench failed", seed, e);
            row = new PartitionRow(seed, p.compact(), "ERROR", false, false, false, -1,
                PartitionPromise.workerFailures(p, options.workers()), Double.NaN, "the bench failed: " + e);
          }
          rows.add(row);
          say(progressLine(row));
        }
        return rows;
      } finally {
        yarn.stop();
      }
    }
  }

  /** A run's row: the standard checks' verdicts, the failures, and a note with each failed check. */
  static PartitionRow judge(Partition p, PartitionRun.Seen seen) {
    RunEvidence e = seen.evidence();
    Map<String, RunCheck.Verdict> verdicts = new LinkedHashMap<>();
    for (RunCheck c : RunChecks.standard()) {
      RunCheck.Verdict v;
      try {
        v = c.check(e);
      } catch (RuntimeException ex) {
        v = RunCheck.Verdict.failed("the check threw " + ex);
      }
      verdicts.put(c.name(), v);
    }
    List<String> note = new ArrayList<>();
    note.add(e.job().appId().toString());
    note.add(seen.cut());
    verdicts.forEach((name, v) -> {
      if (!v.ok() && !name.equals(RunChecks.FAILURES)) {
        note.add(name + " failed: " + v.note());
      }
    });
    boolean modelOk = ok(verdicts, RunChecks.MODEL) && ok(verdicts, RunChecks.STEPS);
    return new PartitionRow(e.seed(), p.compact(), e.outcome(), ok(verdicts, RunChecks.LEADERS),
        ok(verdicts, RunChecks.SAMPLES), modelOk, e.failuresCounted(), e.failuresExpected(),
        seen.healToTrainingSeconds(), String.join("; ", note));
  }

  private static boolean ok(Map<String, RunCheck.Verdict> verdicts, String name) {
    RunCheck.Verdict v = verdicts.get(name);
    return v != null && v.ok();
  }

  static String progressLine(PartitionRow r) {
    return String.format(Locale.ROOT, "seed %d: %s %s, single leader %s, exactly once %s, model %s, failures %d"
        + " (expected %d), heal to training %s [%s] %s", r.seed(), r.schedule(), r.outcome(), r.singleLeader(),
        r.exactlyOnce(), r.modelOk(), r.failuresCounted(), r.failuresExpected(),
        Double.isNaN(r.healToTrainingSeconds()) ? "n/a" : String.format(Locale.ROOT, "%.1f s",
            r.healToTrainingSeconds()), r.asPromised() ? "as promised" : "NOT as promised", r.note());
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
