package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.util.Records;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.thrift.BatchRule;
import org.edl.thrift.JobProgress;
import org.junit.jupiter.api.Test;

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
    int exit = new ProgressFollower(yarn, new PrintWriter(text), Duration.ofMillis(10))
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
    for (String out : java.util.List.of(killed, failed)) {
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
    assertEquals("Loss:    2.3000 at the start, 0.2500 at step 300 of 300", ProgressFollower.lossLine(trained, "cpu"));
    JobProgress emulated = new JobProgress();
    emulated.setStep(120);
    emulated.setTotalSteps(600);
    emulated.setLoss(Double.NaN);
    emulated.setFirstLoss(Double.NaN);
    assertEquals("Loss:    none at step 120 of 600 (the emulated backend only times its batches; it computes no loss)",
        ProgressFollower.lossLine(emulated, "emulated"));
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
    new ProgressFollower(yarn, new PrintWriter(text), Duration.ofMillis(1), inPlace)
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
