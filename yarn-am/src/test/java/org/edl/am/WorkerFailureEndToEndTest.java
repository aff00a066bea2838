package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobPaths;
import org.edl.job.JobSpec;
import org.edl.job.ModelOutput;
import org.edl.job.Recovery;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.LeaderRecord;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.edl.worker.runtime.PeriodicCheckpoints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kill a worker: one of three worker containers is shut down forcefully (SIGKILL, exit 137)
 * while the job trains on the embedded cluster. The AM counts the failure (the job allows the
 * default 3), requests one replacement container and launches it; the job is not failed at once.
 * The survivors recover (a follower killed in either mode, or the leader) and the job succeeds
 * with the step count and samples its recovery mode promises (one cluster for the class).
 */
class WorkerFailureEndToEndTest {
  private static final long STEPS = 4_000;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  /**
   * Only what the AM does: the failure shows in the status naming the container and its exit
   * status, and a replacement container is launched. What the survivors do meanwhile is the
   * workers' business (before worker recovery they may fail too, and the job with them).
   */
  @Test
  void aKilledWorkerIsReportedAndReplacedWithoutFailingTheJob() throws Exception {
    Killed killed = startAndKillOneWorker("worker-failure-e2e");
    try {
      JobStatus after = withAm(killed.report, killed.job, am -> Await.until(
          "the AM to report the failure and launch a replacement", am::status,
          s -> s.getState() == JobState.FAILED || s.getState() == JobState.SUCCEEDED
              || replacementLaunched(s, killed)));
      assertNotEquals(JobState.FAILED, after.getState(), after.getDiagnostics());
      String d = after.getDiagnostics();
      assertTrue(d.contains(killed.victim + " on "), d);
      assertTrue(d.contains("exit status " + ExitStatusText.KILLED), d);
      assertTrue(d.contains("worker failures: 1 of 3 allowed"), d);
      assertEquals(3, after.getTargetWorkers(), "the target stays");
      assertFalse(after.getContainers().contains(killed.victim));
    } finally {
      CLUSTER.yarn().killApplication(killed.job.appId());
    }
  }

  /**
   * The whole story, kill -9 of a follower in consistent mode: the survivors reload the newest
   * checkpoint, the replacement joins, and the job succeeds having counted nothing twice.
   */
  @Test
  void aJobWithAKilledWorkerFinishesWithItsReplacementInTheRing() throws Exception {
    Killed killed = startAndKill(shortSpec("worker-failure-recovered-e2e", Recovery.Mode.CONSISTENT),
        WorkerFailureEndToEndTest::aFollower);
    assertFinishedAsPromised(killed);
  }

  /**
   * kill -9 of a follower in approximate mode: the survivors go on from the batch in flight, so
   * the job ends at its last step having counted every step's samples once; the periodic
   * checkpoints written before the kill are all still there and verify.
   */
  @Test
  void aKilledWorkerInApproximateModeCostsOnlyTheBatchInFlight() throws Exception {
    Killed killed = startAndKill(shortSpec("worker-failure-approximate-e2e", Recovery.Mode.APPROXIMATE),
        WorkerFailureEndToEndTest::aFollower);
    assertFinishedAsPromised(killed);
  }

  /**
   * kill -9 of the leader's container in consistent mode: the next elected worker rebuilds the
   * job from the record the leader published in ZooKeeper, the survivors reload the newest
   * checkpoint, and nothing after it is counted twice.
   */
  @Test
  void aKilledLeaderIsSucceededAndTheJobCountsNothingTwice() throws Exception {
    Killed killed = startAndKill(shortSpec("leader-failure-e2e", Recovery.Mode.CONSISTENT),
        WorkerFailureEndToEndTest::theLeader);
    assertFinishedAsPromised(killed);
  }

  /**
   * kill -9 of the leader's container within its last steps, before it wrote the model: the job
   * succeeds only with a model and metrics that verify, written by the leadership that finished
   * the job (before, the AM took the leader's exit 137 for a mid-training failure, then the
   * followers' exit 0 for success, and declared SUCCEEDED without model.bin). Where exactly in
   * the last steps the kill lands is up to the machine's speed; the exact moments (after the last
   * step, while writing) are ProtocolFaultTest's. So that the kill cannot come after the write on
   * a fast run (the AM reports once a second, a step here can take 8 ms), the leader's JVM is
   * paused first and killed only once the test has seen no metrics.json.
   */
  @Test
  void aLeaderKilledAtTheEndIsSucceededByOneThatWritesTheModel() throws Exception {
    JobSpec spec = slowSpec("leader-at-the-end-e2e");
    Killed killed = startAndKill(spec, spec.training().steps() - 300, WorkerFailureEndToEndTest::theLeader,
        WorkerFailureEndToEndTest::pausedBeforeTheOutput);
    assertFinishedAsPromised(killed);
    ModelOutput.Metrics m = ModelOutput.readMetrics(CLUSTER.configuration(), killed.job.spec().output());
    assertTrue(m.leaderEpoch() >= 2, "written by the successor: " + m);
  }

  /**
   * A follower's container paused (SIGSTOP) on the embedded cluster, longer than the sync timeout,
   * then continued. Its heartbeats stop, so it is the one declared failed; the others' all-reduce
   * with it is aborted and they recover, the AM replaces it; continued, it finds itself fenced and
   * exits 4. The job succeeds having counted that one failure, no other.
   */
  @Test
  void aPausedFollowerIsTheOneFencedAndTheJobSucceeds() throws Exception {
    JobSpec spec = slowSpec("paused-follower-e2e");
    Killed paused = startAndPause(spec, 60, Duration.ofSeconds(12));
    assertFinishedAsPromised(paused);
    ApplicationReport end = CLUSTER.yarn().getApplicationReport(paused.job.appId());
    assertTrue(end.getDiagnostics().contains(paused.victim + " on "), end.getDiagnostics());
    assertTrue(end.getDiagnostics().contains("worker failures: 1 of 3"), "only the paused one: " + end.getDiagnostics());
  }

  /** Slower steps than the short spec's (8 to 40 ms each here, by the load), so that a fault lands where it is meant to. */
  private static JobSpec slowSpec(String name) {
    return JobSpec.builder().name(name).model("mlp")
        .data("synthetic:samples=4096,features=128,classes=4,seed=7").format("auto").workers(3)
        .minWorkers(3).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(600)
        .batchSize(BATCH).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(256).seed(1)
        .backend("cpu").checkpoints(CHECKPOINT_EVERY, 0, 100)
        .recovery(new Recovery(Recovery.Mode.CONSISTENT, 3_000, 3)).build();
  }

  /**
   * Starts the job, pauses a follower's JVM at step {@code at} for {@code pause}, then continues
   * it. The follower and its process are found before that step, and the checkpoints are listed
   * during the pause: a pause must land before the last step (a job of 8 ms steps finished once
   * while the test waited for its first checkpoint, which a loaded HDFS took 8 s to write), and
   * while a member is paused no step can complete.
   */
  private static Killed startAndPause(JobSpec spec, long at, Duration pause) throws Exception {
    SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
    ApplicationReport report = Await.until("the AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
    JobStatus formed = withAm(report, job, am -> Await.until("three workers training", am::status,
        s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getWorkers() == 3));
    List<String> workers = List.copyOf(formed.getContainers());
    String victim = aFollower(job, workers);
    org.edl.bench.ContainerProcesses processes = new org.edl.bench.ContainerProcesses();
    org.edl.bench.ContainerProcesses.ContainerProcess p = processes.find(victim);
    JobStatus training = withAm(report, job, am -> Await.until("step " + at, am::status,
        s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getStep() >= at));
    assertTrue(training.getProgress().getStep() < spec.training().steps(), "paused before the last step: " + training);
    processes.pause(p);
    List<String> checkpoints;
    try {
      long pausedAt = System.nanoTime();
      checkpoints = checkpointNames(job);
      // the fault itself: a process that does nothing this long
      Thread.sleep(Math.max(0, pause.toMillis() - (System.nanoTime() - pausedAt) / 1_000_000));
    } finally {
      processes.resume(p);
    }
    return new Killed(job, report, new HashSet<>(workers), victim, training.getProgress().getStep(), checkpoints);
  }

  private static final long SHORT_STEPS = 1_200;
  private static final int BATCH = 256;
  private static final int CHECKPOINT_EVERY = 100;

  /** A small MLP with a checkpoint every 100 steps (all kept) and a short sync timeout. */
  private static JobSpec shortSpec(String name, Recovery.Mode mode) {
    return JobSpec.builder().name(name).model("mlp")
        .data("synthetic:samples=4096,features=32,classes=4,seed=7").format("auto").workers(3).minWorkers(3)
        .maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(SHORT_STEPS)
        .batchSize(BATCH).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(32).seed(1)
        .backend("cpu").checkpoints(CHECKPOINT_EVERY, 0, 100).recovery(new Recovery(mode, 3_000, 3)).build();
  }

  private static ApplicationReport awaitSucceededWithReplacement(Killed killed) throws Exception {
    try {
      JobStatus after = withAm(killed.report, killed.job, am -> Await.until(
          "the replacement in the ring", am::status,
          s -> s.getState() == JobState.FAILED || s.getState() == JobState.SUCCEEDED
              || replacementLaunched(s, killed) && s.isSetProgress() && s.getProgress().getWorkers() == 3
              && s.getProgress().getStep() > killed.stepBefore + 5));
      assertNotEquals(JobState.FAILED, after.getState(), after.getDiagnostics());
    } catch (org.apache.thrift.transport.TTransportException finished) {
      // The AM ended between two polls: the application report below says how.
    } catch (Throwable t) {
      CLUSTER.yarn().killApplication(killed.job.appId());
      throw t;
    }
    ApplicationReport end = Await.until("the job to end", () -> CLUSTER.yarn().getApplicationReport(killed.job.appId()),
        r -> EnumSet.of(YarnApplicationState.FINISHED, YarnApplicationState.FAILED,
            YarnApplicationState.KILLED).contains(r.getYarnApplicationState()), Duration.ofMinutes(6));
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
    assertTrue(end.getDiagnostics().contains("worker failures: 1 of 3"), end.getDiagnostics());
    return end;
  }

  /**
   * Succeeded with the model on HDFS, at the last step, every step's samples counted once (what
   * both modes promise), and every checkpoint listed before the kill still listed and intact.
   */
  private static void assertFinishedAsPromised(Killed killed) throws Exception {
    awaitSucceededWithReplacement(killed);
    Configuration conf = CLUSTER.configuration();
    FileSystem fs = FileSystem.get(conf);
    String output = killed.job.spec().output();
    assertTrue(fs.getFileStatus(new Path(output, ModelOutput.MODEL_FILE)).getLen() > 0);
    long steps = killed.job.spec().training().steps();
    ModelOutput.Metrics metrics = ModelOutput.readMetrics(conf, output);
    assertEquals(steps, metrics.steps(), metrics.toString());
    assertEquals(steps * killed.job.spec().training().batchSize(), metrics.samplesSeen(), metrics.toString());
    assertEquals(java.util.Optional.empty(), ModelOutput.verify(conf, output, steps));
    List<String> kept = CheckpointDirectory.list(conf, PeriodicCheckpoints.directoryUnder(output)).stream()
        .map(p -> p.getName()).toList();
    assertTrue(kept.containsAll(killed.checkpointsBefore), killed.checkpointsBefore + " in " + kept);
    for (String name : killed.checkpointsBefore) {
      Checkpoint.read(conf, new Path(PeriodicCheckpoints.directoryUnder(output), name).toString()).verify();
    }
  }

  private record Killed(SubmittedJob job, ApplicationReport report, Set<String> before, String victim,
      long stepBefore, List<String> checkpointsBefore) {}

  /** Chooses the container to kill among the three training. */
  @FunctionalInterface
  private interface Victim {
    String among(SubmittedJob job, List<String> workers) throws Exception;
  }

  private static Killed startAndKillOneWorker(String name) throws Exception {
    JobSpec spec = JobSpec.builder().name(name).model("mlp")
        .data("synthetic:samples=8192,features=128,classes=10,seed=5").format("auto").workers(3)
        .minWorkers(3).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(256).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(128).seed(1)
        .backend("cpu").build();
    // Any member: the AM treats the leader like any other worker.
    return startAndKill(spec, (job, workers) -> workers.get(workers.size() - 1));
  }

  /** Starts the job, waits for three workers training (and the first checkpoint, if due), kills one. */
  private static Killed startAndKill(JobSpec spec, Victim choose) throws Exception {
    return startAndKill(spec, spec.checkpoints().everyBatches() > 0 ? spec.checkpoints().everyBatches() + 5 : 5,
        choose);
  }

  /** As {@link #startAndKill(JobSpec, Victim)}, killing once the leader reports step {@code trainedTo}. */
  private static Killed startAndKill(JobSpec spec, long trainedTo, Victim choose) throws Exception {
    return startAndKill(spec, trainedTo, choose, (job, victim) -> {});
  }

  /** Pauses the victim's JVM and checks that the job's output is not written yet. */
  private static void pausedBeforeTheOutput(SubmittedJob job, String victim) throws Exception {
    org.edl.bench.ContainerProcesses processes = new org.edl.bench.ContainerProcesses();
    processes.pause(processes.find(victim));
    Path metrics = new Path(job.spec().output(), ModelOutput.METRICS_FILE);
    assertFalse(CLUSTER.fileSystem().exists(metrics),
        "the job wrote its output before the leader could be paused; kill earlier");
  }

  /** Runs just before the kill, with the victim chosen. */
  @FunctionalInterface
  private interface BeforeKill {
    void run(SubmittedJob job, String victim) throws Exception;
  }

  private static Killed startAndKill(JobSpec spec, long trainedTo, Victim choose, BeforeKill beforeKill)
      throws Exception {
    SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
    ApplicationReport report = Await.until("the AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
    JobStatus training = withAm(report, job, am -> Await.until("three workers training", am::status,
        s -> s.getState() == JobState.RUNNING && s.isSetProgress()
            && s.getProgress().getWorkers() == 3 && s.getProgress().getStep() >= trainedTo));
    List<String> checkpoints = spec.checkpoints().everyBatches() > 0
        ? Await.until("the first periodic checkpoint", () -> checkpointNames(job), names -> !names.isEmpty())
        : List.of();
    List<String> workers = List.copyOf(training.getContainers());
    assertEquals(3, workers.size());
    String victim = choose.among(job, workers);
    beforeKill.run(job, victim);
    CLUSTER.yarn().signalToContainer(ContainerId.fromString(victim), SignalContainerCommand.FORCEFUL_SHUTDOWN);
    return new Killed(job, report, new HashSet<>(workers), victim, training.getProgress().getStep(), checkpoints);
  }

  private static List<String> checkpointNames(SubmittedJob job) throws Exception {
    String directory = PeriodicCheckpoints.directoryUnder(job.spec().output());
    if (!CLUSTER.fileSystem().exists(new Path(directory))) {
      return List.of();
    }
    return CheckpointDirectory.list(CLUSTER.configuration(), directory).stream().map(Path::getName).toList();
  }

  /** The leader, as it last published itself in ZooKeeper ({@code /edl/<appId>/job}). */
  private static String theLeader(SubmittedJob job, List<String> workers) throws Exception {
    try (CuratorFramework zk = CuratorFrameworkFactory.newClient(CLUSTER.cluster().zkConnectString(),
        new ExponentialBackoffRetry(200, 5))) {
      zk.start();
      LeaderRecord record = new LeaderRecord();
      new TDeserializer(new TCompactProtocol.Factory()).deserialize(record,
          zk.getData().forPath(JobPaths.job(job.appId().toString())));
      assertTrue(workers.contains(record.getLeaderId()), record.getLeaderId() + " among " + workers);
      return record.getLeaderId();
    }
  }

  private static String aFollower(SubmittedJob job, List<String> workers) throws Exception {
    String leader = theLeader(job, workers);
    return workers.stream().filter(w -> !w.equals(leader)).reduce((a, b) -> b).orElseThrow();
  }

  private static boolean replacementLaunched(JobStatus s, Killed killed) {
    return s.isSetDiagnostics() && s.getDiagnostics().contains(killed.victim)
        && s.getContainers().stream().anyMatch(id -> !killed.before.contains(id));
  }

  @FunctionalInterface
  private interface AmCall<T> {
    T call(JobControl.Client am) throws Exception;
  }

  private static <T> T withAm(ApplicationReport report, SubmittedJob job, AmCall<T> call) throws Exception {
    try (RpcConnection connection = RpcClient.open(report.getHost(), report.getRpcPort(), job.secret(),
        Duration.ofSeconds(30))) {
      return call.call(new JobControl.Client(connection.protocol()));
    }
  }
}
