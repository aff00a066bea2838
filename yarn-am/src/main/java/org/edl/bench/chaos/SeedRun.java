package org.edl.bench.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.bench.ContainerProcesses;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.BatchRule;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One seed's job: submits it, waits until it trains, applies the schedule relative to that
 * moment while following the job's recovery from each fault, and collects what it left once it
 * ended (or once the bench killed it at the deadline). The cluster offers no notifications for
 * any of this, so it polls.
 */
final class SeedRun {
  private static final Logger LOG = LoggerFactory.getLogger(SeedRun.class);
  private static final Duration POLL = Duration.ofMillis(250);
  private static final String NEXT_FAULT = "the next fault";
  private static final String THE_END = "the end";

  private final ChaosBench.Options options;
  private final Configuration conf;
  private final YarnClient yarn;
  private final CuratorFramework zk;
  private final String data;
  private final ContainerProcesses processes;

  SeedRun(ChaosBench.Options options, Configuration conf, YarnClient yarn, CuratorFramework zk, String data,
      ContainerProcesses processes) {
    this.options = options;
    this.conf = conf;
    this.yarn = yarn;
    this.zk = zk;
    this.data = data;
    this.processes = processes;
  }

  /** The job every seed runs: an MLP on the CPU with a fixed global batch, so that the samples it must count are known. */
  JobSpec spec(long seed) {
    int n = options.workers();
    return JobSpec.builder().name("edl-bench-chaos-" + seed).model("mlp").data(data).format("libsvm")
        .workers(n).minWorkers(1).maxWorkers(n).gpusPerWorker(1).workerMemoryMb(768).workerVcores(1)
        .steps(options.steps()).batchSize(options.globalBatch()).batchRule(BatchRule.FIXED_GLOBAL)
        .learningRate(0.05).hidden(options.hidden()).seed(1).backend("cpu")
        .checkpoints(options.checkpointEvery(), 0, 3)
        .recovery(new Recovery(Recovery.Mode.CONSISTENT, options.syncTimeoutMs(), options.maxWorkerFailures()))
        .timeline(true).build();
  }

  RunEvidence run(long seed, FaultSchedule schedule) throws Exception {
    SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec(seed));
    LOG.info("Seed {}: submitted {}; faults {}", seed, job.appId(), schedule.compact());
    long deadline = System.nanoTime() + options.runTimeout().toNanos();
    Deque<Fault> pending = new ArrayDeque<>(schedule.faults());
    List<FaultRecovery> faults = new ArrayList<>();
    ApplicationReport end = null;
    String outcome = ChaosRun.TIMEOUT;
    JobStatus last = null;
    WorkerFailureCount failures = new WorkerFailureCount();
    long trainingSince = -1;
    try (JobWatch watch = new JobWatch(conf, yarn, job);
        FaultInjector injector = new FaultInjector(processes, new FaultTargets(yarn, zk, job, new Random(seed)))) {
      while (System.nanoTime() < deadline) {
        ApplicationReport report = watch.report();
        if (JobWatch.ended(report)) {
          end = report;
          break;
        }
        FaultRecovery.Observation o = watch.observe(secondsSince(trainingSince), report);
        if (o.status() != null) {
          last = o.status();
          failures.saw(o.attemptId(), o.status().getDiagnostics());
        }
        if (trainingSince < 0) {
          if (isTraining(o.status())) {
            trainingSince = System.nanoTime();
            LOG.info("Seed {}: {} trains with {} workers at step {}; the schedule starts now", seed, job.appId(),
                o.status().getProgress().getWorkers(), o.status().getProgress().getStep());
          }
        } else if (isOver(o.status())) {
          faults.forEach(f -> f.close(THE_END));
          injector.resumeDue(o.seconds());
        } else {
          for (FaultRecovery f : faults) {
            String change = f.observe(o);
            if (!change.isEmpty()) {
              LOG.info("Seed {}: {} at {} s: {}", seed, f.fault().compact(), String.format(Locale.ROOT, "%.1f",
                  o.seconds()), change);
            }
          }
          injector.resumeDue(o.seconds());
          while (!pending.isEmpty() && pending.peek().atSeconds() <= o.seconds()) {
            faults.forEach(f -> f.close(NEXT_FAULT));
            faults.add(injector.apply(pending.poll(), secondsSince(trainingSince), o));
          }
        }
        Thread.sleep(POLL.toMillis());
      }
    } finally {
      if (end == null) {
        end = JobWatch.killAtDeadline(yarn, job, options.runTimeout());
      } else {
        outcome = end.getFinalApplicationStatus().name();
      }
    }
    if (end != null && end.getCurrentApplicationAttemptId() != null) {
      failures.saw(end.getCurrentApplicationAttemptId().toString(), end.getDiagnostics());
    }
    faults.forEach(f -> f.close(THE_END));
    String why = trainingSince < 0 ? "the job was never seen training" : "the job had ended";
    pending.forEach(f -> faults.add(FaultRecovery.notApplied(f, why)));
    long lastStep = last != null && last.isSetProgress() ? last.getProgress().getStep() : -1;
    double detect = options.limits().detectSeconds();
    int expected = faults.stream().filter(FaultRecovery::wasApplied).mapToInt(f -> f.fault().workerFailures(detect))
        .sum();
    LeadershipLog leaderships;
    try {
      leaderships = LeadershipLog.read(conf, job.spec().output());
    } catch (IOException e) {
      LOG.warn("Seed {}: cannot read the workers' timelines: {}", seed, e.toString());
      leaderships = new LeadershipLog(Map.of(), List.of(), -1, -1);
    }
    return new RunEvidence(seed, job, outcome, end == null ? "" : end.getDiagnostics(), lastStep,
        JobOutput.read(conf, job.spec().output(), job.spec().training().steps()), faults, failures.total(), expected,
            leaderships);
  }

  /** Every worker in the ring and a step done: from here on the schedule's clock runs. */
  private static boolean isTraining(JobStatus s) {
    return s != null && s.getState() == JobState.RUNNING && s.isSetProgress()
        && s.getProgress().getWorkers() == s.getTargetWorkers() && s.getProgress().getStep() >= 1;
  }

  /**
   * The leader has reported the last step, or the AM has said how the job ended: no more faults
   * for it, and the workers leaving as they finish are no fault's doing.
   */
  private static boolean isOver(JobStatus s) {
    return s != null && (s.getState() == JobState.SUCCEEDED || s.getState() == JobState.FAILED
        || s.getState() == JobState.KILLED
        || s.isSetProgress() && s.getProgress().getStep() >= s.getProgress().getTotalSteps());
  }

  private static double secondsSince(long nanoTime) {
    return nanoTime < 0 ? 0 : (System.nanoTime() - nanoTime) / 1e9;
  }
}
