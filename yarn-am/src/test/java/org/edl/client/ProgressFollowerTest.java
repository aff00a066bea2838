package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.DataOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.util.Records;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.ModelOutput;
import org.edl.job.rpc.RefusalListener;
import org.edl.job.rpc.RpcServer;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the client prints when the job it follows ends. */
class ProgressFollowerTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1_796_000_000_000L, 7);

  private static String followTo(YarnApplicationState state, FinalApplicationStatus status, String diagnostics)
      throws Exception {
    ApplicationReport end = Records.newRecord(ApplicationReport.class);
    end.setApplicationId(APP);
    end.setYarnApplicationState(state);
    end.setFinalApplicationStatus(status);
    end.setDiagnostics(diagnostics);
    YarnClient yarn = mock(YarnClient.class);
    when(yarn.getApplicationReport(APP)).thenReturn(end);
    JobSpec spec = JobSpec.builder().name("t").model("mlp").data("synthetic:samples=8,features=2,classes=2,seed=1")
        .format("auto").workers(1).minWorkers(1).maxWorkers(1).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(3).batchSize(4).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(4).seed(1).backend("cpu")
        .output("hdfs:///user/me/edl/" + APP).build();
    StringWriter text = new StringWriter();
    int exit = new ProgressFollower(yarn, new Configuration(), new PrintWriter(text), Duration.ofMillis(10))
        .follow(new SubmittedJob(APP, spec, JobSecret.generate(), "hdfs:///staging"));
    assertEquals(status == FinalApplicationStatus.SUCCEEDED ? 0 : 1, exit);
    return text.toString();
  }

  @Test
  void aSucceededJobNamesItsModelAndMetrics() throws Exception {
    String out = followTo(YarnApplicationState.FINISHED, FinalApplicationStatus.SUCCEEDED, "all 1 workers finished");
    assertTrue(out.contains("Model:   hdfs:///user/me/edl/" + APP + "/model.bin"), out);
    assertTrue(out.contains("Metrics: hdfs:///user/me/edl/" + APP + "/metrics.json"), out);
  }

  @Test
  void aKilledOrFailedJobNamesNoPathsThatDoNotExist() throws Exception {
    String killed = followTo(YarnApplicationState.KILLED, FinalApplicationStatus.KILLED, "killed by user");
    String failed = followTo(YarnApplicationState.FINISHED, FinalApplicationStatus.FAILED, "worker failed");
    for (String out : List.of(killed, failed)) {
      assertFalse(out.contains("Model:") || out.contains("Metrics:"), out);
      assertTrue(out.contains("Diagnostics: "), out);
    }
  }

  @Test
  void intoAFileEachStateIsALineOfItsOwnAndOnATerminalOneLineIsRewritten() throws Exception {
    assertEquals("accepted\nrunning\n", progressOf(false));
    assertEquals("\raccepted\raccepted\rrunning \rrunning\n", progressOf(true));
  }

  @Test
  void theLossLineSaysWhenThereIsNoLossRatherThanPrintingNaN() {
    JobProgress trained = new JobProgress();
    trained.setStep(300);
    trained.setTotalSteps(300);
    trained.setLoss(0.25);
    trained.setFirstLoss(2.3);
    assertEquals("Loss:    2.3000 at the start, 0.2500 at step 300 of 300", LossLine.ofProgress(trained, "cpu"));
    JobProgress emulated = new JobProgress();
    emulated.setStep(120);
    emulated.setTotalSteps(600);
    emulated.setLoss(Double.NaN);
    emulated.setFirstLoss(Double.NaN);
    assertEquals("Loss:    none at step 120 of 600 (the emulated backend only times its batches; it computes no loss)",
        LossLine.ofProgress(emulated, "emulated"));
  }

  /**
   * The client's last poll of the AM saw step 5970; the job went on to 6000, where the leader
   * recorded the loss in metrics.json and the AM's summary took it from its last report: the
   * closing loss line must give that step and loss too, not the older sample.
   */
  @Test
  void aFinishedJobsLossIsTheLastStepsFromItsMetricsNotTheClientsLastSample(@TempDir Path dir) throws Exception {
    JobProgress lastPolled = new JobProgress(5970, 6000, 0.0110, 9000, 6);
    lastPolled.setFirstLoss(2.7548);
    String output = dir.toUri().toString();
    Configuration conf = new Configuration();
    ModelOutput.write(output, oneFloat(), ModelOutput.Metrics.of("mlp", 6, 6000, 6000L * 2048, 2.7548, 0.0105,
        9000, 60, 1), conf);
    JobSecret secret = JobSecret.generate();
    StringWriter text = new StringWriter();
    try (RpcServer am = RpcServer.start("job-control", new JobControl.Processor<>(amAnswering(lastPolled)),
        "127.0.0.1", 0, secret, Duration.ofSeconds(10), RefusalListener.NONE)) {
      YarnClient yarn = mock(YarnClient.class);
      ApplicationReport running = report(YarnApplicationState.RUNNING);
      running.setHost("127.0.0.1");
      running.setRpcPort(am.port());
      ApplicationReport finished = report(YarnApplicationState.FINISHED);
      finished.setFinalApplicationStatus(FinalApplicationStatus.SUCCEEDED);
      finished.setDiagnostics("all 6 workers finished; step 6000/6000, loss 2.7548 -> 0.0105");
      when(yarn.getApplicationReport(APP)).thenReturn(running, finished);
      JobSpec spec = JobSpec.builder().name("t").model("mlp").data("synthetic:samples=8,features=2,classes=2,seed=1")
          .format("auto").workers(6).minWorkers(6).maxWorkers(6).gpusPerWorker(0).workerMemoryMb(512)
          .workerVcores(1).steps(6000).batchSize(2048).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(4)
          .seed(1).backend("cpu").output(output).build();
      assertEquals(0, new ProgressFollower(yarn, conf, new PrintWriter(text), Duration.ofMillis(1), false)
          .follow(new SubmittedJob(APP, spec, secret, "hdfs:///staging")));
    }
    String out = text.toString();
    assertTrue(out.contains("step 5970/6000"), "the sample was seen: " + out);
    assertEquals(List.of("Loss:    2.7548 at the start, 0.0105 at step 6000 of 6000"),
        out.lines().filter(l -> l.startsWith("Loss:")).toList(), out);
  }

  @Test
  void aLossSampledBeforeTheLastStepSaysItIsTheLatestSeen() {
    JobProgress lastPolled = new JobProgress(5970, 6000, 0.0110, 9000, 6);
    lastPolled.setFirstLoss(2.7548);
    assertEquals("Loss:    2.7548 at the start, 0.0110 at step 5970 of 6000 (the latest progress this client saw)",
        LossLine.ofProgress(lastPolled, "cpu"));
  }

  /** The AM's job-control endpoint as the client sees it: a status with {@code progress}, nothing else. */
  private static JobControl.Iface amAnswering(JobProgress progress) {
    JobStatus status = new JobStatus(APP.toString(), JobState.RUNNING, 6, List.of());
    status.setProgress(progress);
    return (JobControl.Iface) Proxy.newProxyInstance(JobControl.Iface.class.getClassLoader(),
        new Class<?>[] {JobControl.Iface.class}, (self, method, args) -> {
          if (method.getName().equals("status")) {
            return status;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  private static ModelOutput.State oneFloat() {
    return new ModelOutput.State() {
      @Override
      public int expectedBytes() {
        return Float.BYTES;
      }

      @Override
      public void writeTo(DataOutputStream out) throws java.io.IOException {
        out.writeFloat(1f);
      }
    };
  }

  @Test
  void aPausedJobSaysSoInsteadOfTheStoppedRingsLastProgress() {
    org.edl.thrift.JobStatus paused = new org.edl.thrift.JobStatus("application_1_0001", org.edl.thrift.JobState.SCALING,
        4, java.util.List.of("container_1_0001_01_000010"));
    JobProgress last = new JobProgress(2122, 100_000, Double.NaN, 1300, 4);
    paused.setProgress(last);
    paused.setDiagnostics("paused (the resource manager will preempt all 4 workers; ...): ...");
    assertEquals("paused after step 2122/100000 for the scheduler, 1/4 workers (resumes from its checkpoint when"
        + " YARN grants them)", ProgressFollower.progressLine("running", paused));
    paused.setDiagnostics("stop-resume to 4 workers from ...");
    assertEquals("step 2122/100000  loss -  1300 samples/s  4 workers", ProgressFollower.progressLine("running", paused));
    assertEquals("running", ProgressFollower.progressLine("running", null));
  }

  /** What the follower prints before the outcome, for a job seen accepted twice, running twice, then ended. */
  private static String progressOf(boolean inPlace) throws Exception {
    YarnClient yarn = mock(YarnClient.class);
    when(yarn.getApplicationReport(APP)).thenReturn(report(YarnApplicationState.ACCEPTED),
        report(YarnApplicationState.ACCEPTED), report(YarnApplicationState.RUNNING),
        report(YarnApplicationState.RUNNING), report(YarnApplicationState.KILLED));
    JobSpec spec = JobSpec.builder().name("t").model("mlp").data("synthetic:samples=8,features=2,classes=2,seed=1")
        .format("auto").workers(1).minWorkers(1).maxWorkers(1).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(3).batchSize(4).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(4).seed(1).backend("cpu")
        .output("hdfs:///user/me/edl/" + APP).build();
    StringWriter text = new StringWriter();
    new ProgressFollower(yarn, new Configuration(), new PrintWriter(text), Duration.ofMillis(1), inPlace)
        .follow(new SubmittedJob(APP, spec, JobSecret.generate(), "hdfs:///staging"));
    String out = text.toString();
    String afterSubmitted = out.substring(out.indexOf('\n') + 1);
    return afterSubmitted.substring(0, afterSubmitted.indexOf(APP + " ended"));
  }

  private static ApplicationReport report(YarnApplicationState state) {
    ApplicationReport r = Records.newRecord(ApplicationReport.class);
    r.setApplicationId(APP);
    r.setYarnApplicationState(state);
    r.setFinalApplicationStatus(state == YarnApplicationState.KILLED ? FinalApplicationStatus.KILLED
        : FinalApplicationStatus.UNDEFINED);
    r.setRpcPort(-1);
    r.setDiagnostics("");
    return r;
  }
}
