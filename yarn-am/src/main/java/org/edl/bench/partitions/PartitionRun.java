package org.edl.bench.partitions;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.bench.chaos.JobOutput;
import org.edl.bench.chaos.JobWatch;
import org.edl.bench.chaos.LeadershipLog;
import org.edl.bench.chaos.RunEvidence;
import org.edl.bench.chaos.WorkerFailureCount;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.cluster.hosts.LinkCuts;
import org.edl.cluster.hosts.MultiHostCluster;
import org.edl.job.BatchRule;
import org.edl.job.Growth;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.Stragglers;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One seed's job on the multi-host cluster: submits it, waits until it trains with all its
 * workers, cuts what its {@link Partition} cuts at the partition's moment, heals every cut after
 * the partition's time, measures how long after the heal the job trained again, and collects
 * what it left once it ended (or once it was killed at the deadline). Every cut is healed before
 * this returns, whatever happened.
 */
final class PartitionRun {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionRun.class);
  private static final Duration POLL = Duration.ofMillis(250);

  /** What a run saw besides what RunEvidence holds. */
  record Seen(RunEvidence evidence, String cut, double healToTrainingSeconds) {}

  private final PartitionBench.Options options;
  private final MultiHostCluster cluster;
  private final Configuration conf;
  private final YarnClient yarn;
  private final CuratorFramework zk;
  private final LinkCuts cuts;

  PartitionRun(PartitionBench.Options options, MultiHostCluster cluster, Configuration conf, YarnClient yarn,
      CuratorFramework zk, LinkCuts cuts) {
    this.options = options;
    this.cluster = cluster;
    this.conf = conf;
    this.yarn = yarn;
    this.zk = zk;
    this.cuts = cuts;
  }

  /** An MLP on the CPU with a fixed global batch, so that the samples it must count are known. */
  JobSpec spec(long seed) {
    int n = options.workers();
    return JobSpec.builder().name("edl-bench-partitions-" + seed).model("mlp")
        .data("synthetic:samples=8192,features=256,classes=4,seed=3").format("auto")
        .workers(n).minWorkers(1).maxWorkers(n).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1)
        .steps(options.steps()).batchSize(options.globalBatch()).batchRule(BatchRule.FIXED_GLOBAL)
        .learningRate(0.05).hidden(512).seed(1).backend("cpu").growth(Growth.OFF).stragglers(0, 0, false)
        .checkpoints(options.checkpointEvery(), 0, 3)
        .recovery(new Recovery(Recovery.Mode.CONSISTENT, options.syncTimeoutMs(), options.maxWorkerFailures()))
        .output("/user/edl/bench-partitions/seed-" + seed + "-" + System.currentTimeMillis())
        .timeline(true).build();
  }

  Seen run(long seed, Partition partition) throws Exception {
    SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec(seed));
    LOG.info("Seed {}: submitted {}; partition {}", seed, job.appId(), partition.compact());
    long deadline = System.nanoTime() + options.runTimeout().toNanos();
    String outcome = "TIMEOUT";
    ApplicationReport end = null;
    JobStatus last = null;
    WorkerFailureCount failures = new WorkerFailureCount();
    long trainingSince = -1;
    long cutAt = -1;
    long healedAt = -1;
    long stepAfterHeal = -1;
    double healToTraining = Double.NaN;
    String cut = "not cut: the job was never seen training";
    try (JobWatch watch = new JobWatch(conf, yarn, job)) {
      PartitionTargets targets = new PartitionTargets(cluster, zk, job.appId().toString());
      while (System.nanoTime() < deadline) {
        ApplicationReport report = watch.report();
        if (JobWatch.ended(report)) {
          end = report;
          break;
        }
        JobStatus s = watch.status();
        if (s != null) {
          last = s;
          String attempt = report.getCurrentApplicationAttemptId() == null ? null
              : report.getCurrentApplicationAttemptId().toString();
          failures.saw(attempt, s.getDiagnostics());
        }
        long now = System.nanoTime();
        if (trainingSince < 0) {
          if (isTraining(s)) {
            trainingSince = now;
            cut = "not cut: the job ended first";
            LOG.info("Seed {}: {} trains with {} workers at step {}; the partition comes in {} s", seed,
                job.appId(), s.getProgress().getWorkers(), s.getProgress().getStep(), partition.atSeconds());
          }
        } else if (cutAt < 0 && seconds(now - trainingSince) >= partition.atSeconds() && isTraining(s)
            && !isOver(s)) {
          Optional<String> what = targets.cut(partition, s, report.getHost(), cuts);
          cut = what.orElse("not cut: the ring had no links of this kind");
          cutAt = what.isPresent() ? now : -2;
          LOG.info("Seed {}: at step {}: {}", seed, s.getProgress().getStep(), cut);
        } else if (cutAt >= 0 && healedAt < 0 && seconds(now - cutAt) >= partition.healAfterSeconds()) {
          cuts.healAll();
          healedAt = now;
          LOG.info("Seed {}: healed after {} s", seed, partition.healAfterSeconds());
        } else if (healedAt >= 0 && Double.isNaN(healToTraining) && s != null && s.isSetProgress()) {
          // Training again: the leader reports a step past the one it reported before, both after
          // the heal (a recovery first reports the step it went back to).
          long step = s.getProgress().getStep();
          if (stepAfterHeal >= 0 && step > stepAfterHeal) {
            healToTraining = seconds(now - healedAt);
            LOG.info("Seed {}: training again {} s after the heal (step {})", seed, healToTraining, step);
          }
          stepAfterHeal = step;
        }
        Thread.sleep(POLL.toMillis());
      }
    } finally {
      cuts.healAll();
      if (end == null) {
        end = JobWatch.killAtDeadline(yarn, job, options.runTimeout());
      } else {
        outcome = end.getFinalApplicationStatus().name();
      }
    }
    if (end != null && end.getCurrentApplicationAttemptId() != null) {
      failures.saw(end.getCurrentApplicationAttemptId().toString(), end.getDiagnostics());
    }
    long lastStep = last != null && last.isSetProgress() ? last.getProgress().getStep() : -1;
    LeadershipLog leaderships;
    try {
      leaderships = LeadershipLog.read(conf, job.spec().output());
    } catch (IOException e) {
      LOG.warn("Seed {}: cannot read the workers' timelines: {}", seed, e.toString());
      leaderships = new LeadershipLog(Map.of(), List.of(), -1, -1);
    }
    int expected = cutAt >= 0 ? PartitionPromise.workerFailures(partition, options.workers()) : 0;
    RunEvidence evidence = new RunEvidence(seed, job, outcome, end == null ? "" : end.getDiagnostics(), lastStep,
        JobOutput.read(conf, job.spec().output(), job.spec().training().steps()), List.of(), failures.total(),
        expected, leaderships);
    return new Seen(evidence, cut, healToTraining);
  }

  /** Every worker in the ring and a step done. */
  private static boolean isTraining(JobStatus s) {
    return s != null && s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().isSetMembers()
        && s.getProgress().getWorkers() == s.getTargetWorkers() && s.getProgress().getStep() >= 1;
  }

  private static boolean isOver(JobStatus s) {
    return s.getProgress().getStep() >= s.getProgress().getTotalSteps();
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
