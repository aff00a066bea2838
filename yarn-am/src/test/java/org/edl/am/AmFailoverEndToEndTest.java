package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.ModelOutput;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kill the AM: its container is shut down forcefully in the middle of training on the embedded
 * cluster. YARN starts a second attempt, which adopts the two running worker containers (the
 * same ids: nothing restarted), is found by the leader through ZooKeeper (its status shows the
 * steps still growing past where they were), and the job succeeds with its model on HDFS.
 */
class AmFailoverEndToEndTest {
  private static final long STEPS = 4_000;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  @Test
  void aKilledAmIsReplacedByAnAttemptThatAdoptsTheRunningWorkers() throws Exception {
    JobSpec spec = JobSpec.builder().name("am-failover-e2e").model("mlp")
        .data("synthetic:samples=8192,features=128,classes=10,seed=5").format("auto").workers(2)
        .minWorkers(2).maxWorkers(2).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(256).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(128).seed(1)
        .backend("cpu").build();
    SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
    try {
      ApplicationReport first = Await.until("the first AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
          r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
      assertEquals(1, first.getCurrentApplicationAttemptId().getAttemptId());
      JobStatus before = withAm(first, job, am -> Await.until("two workers training", am::status,
          s -> s.getState() == JobState.RUNNING && s.isSetProgress()
              && s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 5));
      List<String> workers = List.copyOf(before.getContainers());
      assertEquals(2, workers.size());

      ContainerId amContainer = CLUSTER.yarn().getApplicationAttemptReport(first.getCurrentApplicationAttemptId())
          .getAMContainerId();
      CLUSTER.yarn().signalToContainer(amContainer, SignalContainerCommand.FORCEFUL_SHUTDOWN);

      ApplicationReport second = Await.until("a second AM attempt to register",
          () -> CLUSTER.yarn().getApplicationReport(job.appId()),
          r -> r.getCurrentApplicationAttemptId().getAttemptId() == 2 && r.getRpcPort() > 0
              && r.getYarnApplicationState() == YarnApplicationState.RUNNING);
      assertNotEquals(first.getHost() + ":" + first.getRpcPort(), second.getHost() + ":" + second.getRpcPort(),
          "the application report names the new attempt's endpoint");
      long stepBefore = before.getProgress().getStep();
      JobStatus after = withAm(second, job, am -> Await.until("the leader reporting to the new AM", am::status,
          s -> s.getState() == JobState.RUNNING && s.isSetProgress()
              && s.getProgress().getStep() > stepBefore + 5));
      assertEquals(Set.copyOf(workers), Set.copyOf(after.getContainers()),
          "the same worker containers, not restarted");
      assertEquals(2, after.getProgress().getWorkers());
    } catch (Throwable t) {
      t.addSuppressed(new AssertionError("application diagnostics: "
          + CLUSTER.yarn().getApplicationReport(job.appId()).getDiagnostics()));
      CLUSTER.yarn().killApplication(job.appId());
      throw t;
    }
    ApplicationReport end = Await.until("the job to end", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> EnumSet.of(YarnApplicationState.FINISHED, YarnApplicationState.FAILED,
            YarnApplicationState.KILLED).contains(r.getYarnApplicationState()));
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
    assertTrue(end.getDiagnostics().contains("all 2 workers finished training"), end.getDiagnostics());
    FileSystem fs = CLUSTER.fileSystem();
    Path model = new Path(job.spec().output(), ModelOutput.MODEL_FILE);
    assertTrue(fs.exists(model), "the model is written: " + model);
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
