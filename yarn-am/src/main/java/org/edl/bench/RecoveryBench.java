package org.edl.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobControlConnection;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobStatus;
import org.edl.worker.runtime.PeriodicCheckpoints;

/**
 * {@code edl bench faults} (recovery part): on the embedded cluster, a 4-worker job has one worker
 * container killed (SIGKILL through its NodeManager) halfway between two periodic checkpoints,
 * once per recovery mode: consistent, approximate, and the stop-resume baseline (the job fails
 * and is resubmitted from its newest checkpoint, what a job without EDL's recovery goes through;
 * the resubmission is immediate, no human delay counted); then the leader's container, once per
 * EDL mode (the fault {@code leader-kill}; the victim is the leader the job's ZooKeeper record
 * names); then, in consistent mode, the newest worker's JVM is paused (the fault {@code pause}: a
 * hung member, declared failed when its heartbeats have stopped for the sync timeout). Costs come
 * from the workers' timelines ({@link RecoveryAnalysis}).
 */
public final class RecoveryBench {
  static final String DATA_SPEC = "synthetic:samples=16384,features=256,classes=10,seed=5";

  /** What to run; see {@link org.edl.devtools.BenchCommand.Faults} for the flags. */
  public record Options(int workers, int perWorkerBatch, int hidden, int checkpointEvery, int settleBatches,
      Duration phaseTimeout) {}

  /**
   * What happens: the newest worker's container is killed ({@code kill}), the leader's is
   * ({@code leader-kill}), or the newest worker's JVM is paused with SIGSTOP, sockets open, until
   * the others train without it, and then resumed ({@code pause}: a hung member).
   */
  public enum Fault {
    KILL("kill"), LEADER_KILL("leader-kill"), PAUSE("pause");

    private final String name;

    Fault(String name) {
      this.name = name;
    }

    public String csvName() {
      return name;
    }

    public static Fault of(String name) {
      for (Fault f : values()) {
        if (f.name.equals(name)) {
          return f;
        }
      }
      throw new IllegalArgumentException("unknown fault " + name);
    }
  }

  /** One mode's figures under one fault. */
  public record Result(String mode, Fault fault, RecoveryAnalysis.Cost cost) {}

  private final Options options;
  private final PrintWriter out;

  public RecoveryBench(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  public List<Result> run() throws Exception {
    return BenchJob.onEmbeddedCluster(DATA_SPEC, "recovery.libsvm", out, (conf, yarn, zk, data) -> List.of(
        runMode(conf, yarn, zk, data, "consistent", Recovery.Mode.CONSISTENT, Fault.KILL),
        runMode(conf, yarn, zk, data, "approximate", Recovery.Mode.APPROXIMATE, Fault.KILL),
        runMode(conf, yarn, zk, data, "stop-resume", null, Fault.KILL),
        runMode(conf, yarn, zk, data, "consistent", Recovery.Mode.CONSISTENT, Fault.LEADER_KILL),
        runMode(conf, yarn, zk, data, "approximate", Recovery.Mode.APPROXIMATE, Fault.LEADER_KILL),
        runMode(conf, yarn, zk, data, "consistent", Recovery.Mode.CONSISTENT, Fault.PAUSE)));
  }

  /** {@code recovery} null: the stop-resume baseline. */
  private Result runMode(Configuration conf, YarnClient yarn, CuratorFramework zk, String data, String mode,
      Recovery.Mode recovery, Fault fault) throws Exception {
    String name = fault == Fault.KILL ? mode : mode + ", " + fault.csvName();
    int n = options.workers();
    Recovery r = recovery == null ? new Recovery(Recovery.Mode.CONSISTENT, 0, 0) : new Recovery(recovery, 0, 3);
    JobSpec spec = JobSpec.builder().name("edl-bench-recovery-" + mode + "-" + fault.csvName()).model("mlp").data(data)
        .format("libsvm").workers(n).minWorkers(1).maxWorkers(n).gpusPerWorker(1).workerMemoryMb(768)
        .workerVcores(1).steps(10_000_000L).batchSize(options.perWorkerBatch())
        .batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(options.hidden()).seed(1)
        .backend("cpu").checkpoints(options.checkpointEvery(), 0, 3).recovery(r).timeline(true).build();
    SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec);
    say("[" + name + "] submitted " + job.appId() + " (" + n + " workers, checkpoint every "
        + options.checkpointEvery() + " batches)");
    long killMs;
    long stepAtKill;
    List<Timelines.Row> rows = new ArrayList<>();
    try (JobControlConnection connection = BenchJob.connect(conf, yarn, job)) {
      JobControl.Iface control = connection.control();
      // Halfway between the first and the second periodic checkpoint.
      JobStatus before = BenchJob.awaitSize(control, options.phaseTimeout(), n,
          options.checkpointEvery() + options.checkpointEvery() / 2, name);
      String victim = fault == Fault.LEADER_KILL ? leaderOf(zk, job.appId().toString())
          : before.getContainers().get(before.getContainers().size() - 1);
      stepAtKill = before.getProgress().getStep();
      killMs = System.currentTimeMillis();
      ContainerProcesses processes = new ContainerProcesses();
      ContainerProcesses.ContainerProcess paused = null;
      if (fault == Fault.PAUSE) {
        paused = processes.find(victim);
        killMs = System.currentTimeMillis();
        processes.pause(paused);
        say("[" + name + "] paused " + victim + " near step " + stepAtKill);
      } else {
        yarn.signalToContainer(ContainerId.fromString(victim), SignalContainerCommand.FORCEFUL_SHUTDOWN);
        say("[" + name + "] killed " + victim + (fault == Fault.LEADER_KILL ? " (the leader)" : "") + " near step "
            + stepAtKill);
      }
      if (paused != null) {
        // The others go on without it; resumed, it finds itself fenced and exits, and is replaced.
        try {
          BenchJob.awaitSize(control, options.phaseTimeout(), n - 1, options.settleBatches(), name);
        } finally {
          processes.resume(paused);
        }
      }
      if (recovery != null) {
        BenchJob.awaitSize(control, options.phaseTimeout(), n, options.settleBatches(), name);
        BenchJob.endJob(zk, job);
      }
    }
    ApplicationReport end = BenchJob.awaitFinished(yarn, job);
    rows.addAll(batchRows(job.spec().output(), conf));
    if (recovery == null) {
      if (end.getFinalApplicationStatus() != FinalApplicationStatus.FAILED) {
        throw new IllegalStateException("[" + name + "] the job without recovery should have failed: "
            + end.getFinalApplicationStatus() + " " + end.getDiagnostics());
      }
      String checkpoints = PeriodicCheckpoints.directoryUnder(job.spec().output());
      SubmittedJob resumed = new JobSubmitter(conf,
          yarn).submit(spec.toBuilder().output("").resumeFrom(checkpoints).build());
      say("[" + name + "] resubmitted as " + resumed.appId() + " from " + checkpoints);
      try (JobControlConnection connection = BenchJob.connect(conf, yarn, resumed)) {
        BenchJob.awaitSize(connection.control(), options.phaseTimeout(), n, options.settleBatches(), name);
        BenchJob.endJob(zk, resumed);
      }
      BenchJob.awaitFinished(yarn, resumed);
      rows.addAll(batchRows(resumed.spec().output(), conf));
    }
    RecoveryAnalysis.Cost c = RecoveryAnalysis.of(rows, killMs, stepAtKill, n, spec.resources().gpusPerWorker());
    say(String.format(Locale.ROOT, "[%s] training again %.2f s after the death; steps %d..%d redone (%d);"
        + " %.1f GPU-s lost", name, c.recoverySeconds(), c.firstStepAfter(), c.lastStepBefore(), c.stepsRedone(),
        c.lostGpuSeconds()));
    return new Result(mode, fault, c);
  }

  /** The worker the job's ZooKeeper record names as its leader now. */
  private static String leaderOf(CuratorFramework zk, String appId) throws Exception {
    return org.edl.worker.coord.rpc.Wire.jobRecord(zk.getData().forPath(org.edl.job.JobPaths.job(appId))).leaderId();
  }

  /** The job's timelines (none where its workers were killed before writing them). */
  private static List<Timelines.Row> batchRows(String output, Configuration conf) {
    List<Timelines.Row> rows = new ArrayList<>();
    try {
      Timelines.read(output, conf).byWorker().values().forEach(rows::addAll);
    } catch (IOException e) {
      // The baseline's failed job: its workers were stopped by YARN, not ended by the job.
    }
    return rows;
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
