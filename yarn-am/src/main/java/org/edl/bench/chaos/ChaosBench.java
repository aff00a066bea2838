package org.edl.bench.chaos;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.edl.bench.BenchJob;
import org.edl.bench.ContainerProcesses;
import org.edl.job.InvalidInputException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code edl bench chaos}: on the embedded cluster, one training job per seed under that seed's
 * {@link FaultSchedule} of kills and pauses (worker, leader, AM), each run checked afterwards
 * against what EDL promises ({@link RunChecks}, and any {@link RunCheck} added with
 * {@link #withChecks}). Whatever happens in one run, the next seed runs; one line per seed is
 * printed as it ends.
 */
public final class ChaosBench {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosBench.class);
  /** RecoveryBench's data set: large enough that a step is mostly compute, not overhead. */
  static final String DATA_SPEC = "synthetic:samples=16384,features=256,classes=10,seed=5";

  /**
   * What to run.
   *
   * @param seeds             runs, one per seed
   * @param firstSeed         the first seed; the others follow it
   * @param steps             steps of each job
   * @param workers           workers of each job (one of the cluster's 8 GPUs stays free for a replacement)
   * @param maxWorkerFailures the job's limit, and the schedule's budget
   * @param checkpointEvery   a periodic checkpoint every this many batches (consistent recovery goes back to it)
   * @param globalBatch       samples per step, over all workers
   * @param hidden            hidden units of the MLP
   * @param expectedSeconds   how long a job runs without faults on this machine: faults fall
   *                          between 20% and 70% of it after training started
   * @param syncTimeoutMs     the job's sync timeout: a silent worker is declared failed after it
   *                          (a pause longer than it costs a failure)
   * @param gapSeconds        from the end of one fault to the next
   * @param maxFaults         faults per run at most
   * @param runTimeout        from submission; a job still running then is killed (TIMEOUT)
   */
  public record Options(int seeds, long firstSeed, long steps, int workers, int maxWorkerFailures, int checkpointEvery,
      int globalBatch, int hidden, double expectedSeconds, long syncTimeoutMs, double gapSeconds, int maxFaults,
      Duration runTimeout) {
    public static final int DEFAULT_SEEDS = 20;
    public static final long DEFAULT_STEPS = 1_500;
    public static final int DEFAULT_WORKERS = 4;
    public static final int DEFAULT_MAX_WORKER_FAILURES = 3;
    public static final int DEFAULT_CHECKPOINT_EVERY = 100;
    /** Measured with the default steps on a shared 2-core machine: 1,500 steps in about 80 s with no fault. */
    public static final double DEFAULT_EXPECTED_SECONDS = 80;
    /** The cluster's GPUs less one for a replacement while a paused worker still holds its own. */
    static final int MAX_WORKERS = 7;

    /**
     * The defaults, with the flags {@code edl bench chaos} has: a global batch of 1024 over an
     * MLP of 256 hidden units, a 10 s sync timeout, up to 3 faults 25 s apart (a leader's
     * recovery took about 23 s here), a job killed 10 minutes after submission.
     */
    public static Options of(int seeds, long firstSeed, long steps, int workers, int maxWorkerFailures,
        int checkpointEvery, double expectedSeconds) {
      return new Options(seeds, firstSeed, steps, workers, maxWorkerFailures, checkpointEvery, 1024, 256,
          expectedSeconds, 10_000, 25, 3, Duration.ofMinutes(10));
    }

    /** Refuses values no run could use; the message names the flag. */
    public Options validate() {
      atLeast("--seeds", seeds, 1);
      atLeast("--steps", steps, 1);
      atLeast("--workers", workers, 2);
      if (workers > MAX_WORKERS) {
        throw new InvalidInputException("--workers", workers, "at most " + MAX_WORKERS
            + ": the embedded cluster has 8 GPUs and a replacement needs one while a paused worker holds its own");
      }
      atLeast("--max-worker-failures", maxWorkerFailures, 0);
      atLeast("--checkpoint-every", checkpointEvery, 1);
      if (!(expectedSeconds >= 10) || Double.isInfinite(expectedSeconds)) {
        throw new InvalidInputException("--expected-seconds", expectedSeconds, "at least 10 seconds");
      }
      if (firstSeed > Long.MAX_VALUE - seeds) {
        throw new InvalidInputException("--first-seed", firstSeed, "too large for " + seeds + " seeds");
      }
      return this;
    }

    /** The window, the budget and the spacing every schedule of this bench fits. */
    public FaultSchedule.Limits limits() {
      return new FaultSchedule.Limits(0.2 * expectedSeconds, 0.7 * expectedSeconds, maxWorkerFailures,
          syncTimeoutMs / 1000.0, gapSeconds, maxFaults);
    }

    private static void atLeast(String flag, long value, long min) {
      if (value < min) {
        throw new InvalidInputException(flag, value, "at least " + min);
      }
    }
  }

  private final Options options;
  private final PrintWriter out;
  private final List<RunCheck> checks;

  public ChaosBench(Options options, PrintWriter out) {
    this(options, out, RunChecks.standard());
  }

  private ChaosBench(Options options, PrintWriter out, List<RunCheck> checks) {
    this.options = options.validate();
    this.out = out;
    this.checks = List.copyOf(checks);
  }

  /** The same bench with {@code more} checks after the standard ones. */
  public ChaosBench withChecks(List<RunCheck> more) {
    List<RunCheck> all = new ArrayList<>(checks);
    all.addAll(more);
    return new ChaosBench(options, out, all);
  }

  public List<ChaosRun> run() throws Exception {
    say(String.format(Locale.ROOT, "Chaos: seeds %d..%d, %d workers, %d steps, faults between %.0f s and %.0f s"
        + " of training, at most %d worker failures", options.firstSeed(), options.firstSeed() + options.seeds() - 1,
        options.workers(), options.steps(), options.limits().windowStartSeconds(), options.limits().windowEndSeconds(),
        options.maxWorkerFailures()));
    return BenchJob.onEmbeddedCluster(DATA_SPEC, "chaos.libsvm", out, (conf, yarn, zk, data) -> {
      SeedRun seedRun = new SeedRun(options, conf, yarn, zk, data, new ContainerProcesses());
      List<ChaosRun> runs = new ArrayList<>();
      for (long seed = options.firstSeed(); seed < options.firstSeed() + options.seeds(); seed++) {
        FaultSchedule schedule = FaultSchedule.generate(seed, options.limits());
        ChaosRun run;
        try {
          run = judge(schedule, seedRun.run(seed, schedule), checks);
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          // The bench's own failure (the cluster refused the job, ZooKeeper was unreachable):
          // recorded as such, and the next seed still runs.
          LOG.warn("Seed {}: the bench failed", seed, e);
          run = new ChaosRun(seed, schedule.compact(), ChaosRun.ERROR, -1, options.steps(), false, false, Double.NaN,
              "the bench failed: " + e);
        }
        runs.add(run);
        say(progressLine(run));
      }
      return runs;
    });
  }

  /**
   * A run's row from its evidence: every check applied (one that throws counts as failed), the
   * columns from the standard checks, the longest measured recovery, and a note with the
   * application, each fault's story and each failed check.
   */
  static ChaosRun judge(FaultSchedule schedule, RunEvidence evidence, List<RunCheck> checks) {
    Map<String, RunCheck.Verdict> verdicts = new LinkedHashMap<>();
    for (RunCheck c : checks) {
      RunCheck.Verdict v;
      try {
        v = c.check(evidence);
      } catch (RuntimeException e) {
        v = RunCheck.Verdict.failed("the check threw " + e);
      }
      verdicts.put(c.name(), v);
    }
    double longest = evidence.faults().stream().filter(FaultRecovery::isRecovered)
        .mapToDouble(FaultRecovery::recoverySeconds).max().orElse(Double.NaN);
    long finalStep = evidence.output().metric("steps").orElse(evidence.lastReportedStep());
    List<String> note = new ArrayList<>();
    note.add(evidence.job().appId().toString());
    evidence.faults().forEach(f -> note.add(f.describe()));
    verdicts.forEach((name, v) -> {
      if (!v.ok()) {
        note.add(name + " failed: " + v.note());
      }
    });
    return new ChaosRun(evidence.seed(), schedule.compact(), evidence.outcome(), finalStep,
        evidence.job().spec().training().steps(), passed(verdicts, RunChecks.SAMPLES), passed(verdicts,
            RunChecks.MODEL),
        longest, String.join("; ", note));
  }

  private static boolean passed(Map<String, RunCheck.Verdict> verdicts, String name) {
    RunCheck.Verdict v = verdicts.get(name);
    return v != null && v.ok();
  }

  static String progressLine(ChaosRun r) {
    return String.format(Locale.ROOT, "seed %d: %s, step %d/%d, model %s, samples %s, longest recovery %s [%s] %s",
        r.seed(), r.outcome(), r.finalStep(), r.steps(), r.modelOk() ? "ok" : "NOT ok",
        r.samplesOk() ? "ok" : "NOT ok",
        Double.isNaN(r.recoverySecondsMax()) ? "n/a" : String.format(Locale.ROOT, "%.1f s", r.recoverySecondsMax()),
        r.faults(), r.note());
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }

  /** The checks this bench applies, in order. */
  public List<String> checkNames() {
    return checks.stream().map(RunCheck::name).collect(Collectors.toList());
  }
}
