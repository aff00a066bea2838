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
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.cluster.EmbeddedCluster;
import org.edl.thrift.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.testing.Await;
import org.edl.worker.job.JobSpec;
import org.edl.worker.rpc.RpcClient;
import org.edl.worker.rpc.RpcConnection;
import org.edl.worker.runtime.ModelOutput;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Kill a worker: one of three worker containers is shut down forcefully (SIGKILL, exit 137)
 * while the job trains on the embedded cluster. The AM counts the failure (the job allows the
 * default 3), requests one replacement container and launches it; the job is not failed at once.
 */
class WorkerFailureEndToEndTest {
  private static final long STEPS = 4_000;

  private static EmbeddedCluster cluster;
  private static YarnClient yarn;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = EmbeddedCluster.builder().nodes(2).gpusPerNode(4).build().start();
    yarn = YarnClient.createYarnClient();
    yarn.init(cluster.configuration());
    yarn.start();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (yarn != null) {
      yarn.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

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
      yarn.killApplication(killed.job.appId());
    }
  }

  /** The whole story, once the workers recover from a failed member. */
  @Disabled("needs worker recovery, branch recovery: before it the survivors do not go on after"
      + " a member dies, so the job cannot finish; enable at merge time")
  @Test
  void aJobWithAKilledWorkerFinishesWithItsReplacementInTheRing() throws Exception {
    Killed killed = startAndKillOneWorker("worker-failure-recovered-e2e");
    try {
      JobStatus after = withAm(killed.report, killed.job, am -> Await.until(
          "the replacement in the ring", am::status,
          s -> s.getState() == JobState.FAILED || replacementLaunched(s, killed)
              && s.isSetProgress() && s.getProgress().getWorkers() == 3
              && s.getProgress().getStep() > killed.stepBefore + 5));
      assertNotEquals(JobState.FAILED, after.getState(), after.getDiagnostics());
    } catch (Throwable t) {
      yarn.killApplication(killed.job.appId());
      throw t;
    }
    ApplicationReport end = Await.until("the job to end", () -> yarn.getApplicationReport(killed.job.appId()),
        r -> EnumSet.of(YarnApplicationState.FINISHED, YarnApplicationState.FAILED,
            YarnApplicationState.KILLED).contains(r.getYarnApplicationState()), Duration.ofMinutes(6));
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
    assertTrue(end.getDiagnostics().contains("worker failures: 1 of 3"), end.getDiagnostics());
    FileSystem fs = FileSystem.get(cluster.configuration());
    assertTrue(fs.exists(new Path(killed.job.spec().output(), ModelOutput.MODEL_FILE)));
  }

  private record Killed(SubmittedJob job, ApplicationReport report, Set<String> before, String victim,
      long stepBefore) {}

  private static Killed startAndKillOneWorker(String name) throws Exception {
    JobSpec spec = new JobSpec(name, "mlp", "synthetic:samples=8192,features=128,classes=10,seed=5",
        "auto", 3, 3, 3, 1, 512, 1, STEPS, 256, BatchRule.FIXED_GLOBAL, 0.05, 128, 1, "cpu", "", "")
        .validate();
    SubmittedJob job = new JobSubmitter(cluster.configuration(), yarn).submit(spec);
    ApplicationReport report = Await.until("the AM to register", () -> yarn.getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
    JobStatus training = withAm(report, job, am -> Await.until("three workers training", am::status,
        s -> s.getState() == JobState.RUNNING && s.isSetProgress()
            && s.getProgress().getWorkers() == 3 && s.getProgress().getStep() >= 5));
    List<String> workers = List.copyOf(training.getContainers());
    assertEquals(3, workers.size());
    // Any member: the AM treats the leader like any other worker.
    String victim = workers.get(workers.size() - 1);
    yarn.signalToContainer(ContainerId.fromString(victim), SignalContainerCommand.FORCEFUL_SHUTDOWN);
    return new Killed(job, report, new HashSet<>(workers), victim, training.getProgress().getStep());
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
