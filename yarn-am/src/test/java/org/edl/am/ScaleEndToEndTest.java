package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.WorkerEnv;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.job.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.edl.thrift.ScaleMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A running job changes size through the AM's job-control endpoint on the embedded cluster:
 * real AM, real worker containers, real ZooKeeper leader. 2 -> 3 (a new YARN container joins
 * and the leader reports 3 workers while training goes on), a refused scale-out beyond
 * max-workers, 3 -> 2 (the newest container leaves at a scheduled step and completes with exit
 * status 3, EXIT_LEFT, which the AM takes as the scale-in done), and the job still succeeds. On the way a
 * profile at 3 workers stores its table and chart beside the model.
 */
class ScaleEndToEndTest {
  /**
   * Enough steps that the job outlives both changes (on a 2-core machine the newest worker has left
   * by about step 1,600); the test waits on state, never on time, and after the scale-in only for
   * the last step.
   */
  private static final long STEPS = 5_000;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  @Test
  void aRunningJobGrowsByOneContainerShrinksBackAndStillSucceeds() throws Exception {
    FileSystem fs = CLUSTER.fileSystem();
    Path text = CLUSTER.home("scale-e2e.libsvm");
    try (java.io.OutputStream out = fs.create(text)) {
      org.edl.worker.data.SyntheticData.writeLibsvm("synthetic:samples=8192,features=128,classes=10,seed=5", out);
    }
    // An MLP big enough that a step is mostly computation: its pace then follows the machine's
    // like the newcomers' start-up does, so the job outlives the changes on slow and fast hosts.
    JobSpec spec = JobSpec.builder().name("scale-e2e").model("mlp")
        .data(text.toString()).format("auto").workers(2)
        .minWorkers(2).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(256).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(128).seed(1)
        .backend("cpu").build();
    SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
    ApplicationReport running = Await.until("the AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);

    try {
      newcomersWillNeedTheCopy(job, text);
      changeSize(job, running);
    } catch (Throwable t) {
      // The AM's final diagnostics name the container that failed and its stderr's last line.
      t.addSuppressed(new AssertionError("application diagnostics: " + CLUSTER.awaitEnd(job.appId()).getDiagnostics()));
      throw t;
    }
    ApplicationReport end = CLUSTER.awaitEnd(job.appId());
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
    assertTrue(end.getDiagnostics().contains("all 2 workers finished training"), end.getDiagnostics());
  }

  /**
   * The baseline on the same path: `edl scale-out --mode stop-resume` checkpoints and stops both
   * workers, and three new containers go on from the checkpoint's step, not from step 0.
   */
  @Test
  void stopResumeRelaunchesEveryWorkerFromTheCheckpoint() throws Exception {
    JobSpec spec = JobSpec.builder().name("stop-resume-e2e").model("mlp")
        .data("synthetic:samples=8192,features=128,classes=10,seed=5").format("auto").workers(2)
        .minWorkers(2).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(256).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(128).seed(1)
        .backend("cpu").build();
    SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
    ApplicationReport running = Await.until("the AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
    try (RpcConnection connection = RpcClient.open(running.getHost(), running.getRpcPort(), job.secret(),
        Duration.ofSeconds(30))) {
      JobControl.Client am = new JobControl.Client(connection.protocol());
      JobStatus training = Await.until("two workers training", am::status,
          s -> s.getState() == JobState.RUNNING && s.isSetProgress()
              && s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 5);
      List<String> first = List.copyOf(training.getContainers());
      long stepBefore = training.getProgress().getStep();

      String printed = cli("scale-out", job.appId().toString(), "-n", "1", "--mode", "stop-resume");
      assertTrue(printed.contains("target 3"), printed);
      JobStatus three = Await.until("three relaunched workers", am::status,
          s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 3
              && s.getContainersSize() == 3);
      assertTrue(three.getContainers().stream().noneMatch(first::contains),
          "every worker was relaunched: " + three.getContainers() + " after " + first);
      assertTrue(three.getProgress().getStep() > stepBefore,
          "training went on from the checkpoint, not from step 0: " + three.getProgress());
      FileSystem fs = CLUSTER.fileSystem();
      Path checkpoints = new Path(spec.toBuilder().output(job.spec().output()).build().output(),
          "checkpoints/restart-1");
      assertTrue(fs.exists(checkpoints), "the checkpoint is kept with the job: " + checkpoints);
    } catch (Throwable t) {
      t.addSuppressed(new AssertionError("application diagnostics: "
          + CLUSTER.yarn().getApplicationReport(job.appId()).getDiagnostics()));
      throw t;
    } finally {
      CLUSTER.yarn().killApplication(job.appId());
    }
  }

  /**
   * Waits for the first ring's binary copy of the data set in the staging directory, then makes
   * the text unparseable with its length and time unchanged: a newcomer that joins can only have
   * read the copy.
   */
  private static void newcomersWillNeedTheCopy(SubmittedJob job, Path text) throws Exception {
    FileSystem fs = CLUSTER.fileSystem();
    Path copies = new Path(job.stagingDir(), StagingLayout.DATASET_COPY_DIR);
    assertEquals(copies.toString(), job.spec().data().cache());
    Await.until("the first ring's copy of the data set", () -> fs.exists(copies)
        ? List.of(fs.listStatus(copies)) : List.<org.apache.hadoop.fs.FileStatus>of(),
        l -> l.size() == 1 && l.get(0).getPath().getName().endsWith(".bin"));
    org.apache.hadoop.fs.FileStatus before = fs.getFileStatus(text);
    byte[] garbage = new byte[(int) before.getLen()];
    java.util.Arrays.fill(garbage, (byte) '#');
    garbage[0] = 'x';
    try (java.io.OutputStream out = fs.create(text, true)) {
      out.write(garbage);
    }
    fs.setTimes(text, before.getModificationTime(), -1);
  }

  private static void changeSize(SubmittedJob job, ApplicationReport running) throws Exception {
    try (RpcConnection connection = RpcClient.open(running.getHost(), running.getRpcPort(), job.secret(),
        Duration.ofSeconds(30))) {
      JobControl.Client am = new JobControl.Client(connection.protocol());
      JobStatus training = Await.until("two workers training", am::status,
          s -> s.getState() == JobState.RUNNING && s.isSetProgress()
              && s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 1);
      List<String> first = List.copyOf(training.getContainers());
      assertEquals(2, first.size());

      EdlError beyondMax = assertThrows(EdlError.class, () -> am.scaleOut(2, ScaleMode.EDL));
      assertEquals("count", beyondMax.getField());
      assertEquals("2", beyondMax.getValue());
      JobStatus unchanged = am.status();
      assertEquals(2, unchanged.getTargetWorkers());
      assertEquals(JobState.RUNNING, unchanged.getState());
      assertEquals(first, unchanged.getContainers());

      // The operator's path: `edl scale-out <appId>` finds the AM through the RM's report.
      String printed = cli("scale-out", job.appId().toString(), "-n", "1");
      assertTrue(printed.contains("target 3"), printed);
      assertEquals(3, am.status().getTargetWorkers());
      JobStatus three = Await.until("the leader to report 3 workers", am::status,
          s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 3);
      assertEquals(3, three.getContainersSize());
      String newcomer = three.getContainers().stream().filter(id -> !first.contains(id))
          .findFirst().orElseThrow();
      long stepAtThree = three.getProgress().getStep();
      Await.until("training to go on with 3 workers", am::status,
          s -> s.getProgress().getStep() > stepAtThree + 5 && s.getProgress().getWorkers() == 3);

      // A profile at the size the job has: one measurement, stored beside the model. It answers
      // only when measured, so it gets a connection that waits that long.
      try (RpcConnection slow = RpcClient.open(running.getHost(), running.getRpcPort(), job.secret(), Await.WAIT)) {
        ProfileResult profile = new JobControl.Client(slow.protocol()).profile(3, 3, 20);
        assertEquals(1, profile.getPointsSize());
        ProfilePoint at3 = profile.getPoints().get(0);
        assertEquals(3, at3.getWorkers());
        assertTrue(at3.getBatches() >= 20 && at3.getSamplesPerSecond() > 0, at3.toString());
        FileSystem fs = CLUSTER.fileSystem();
        List<String> table = new String(fs.open(new Path(profile.getTablePath())).readAllBytes(),
            StandardCharsets.UTF_8).lines().toList();
        assertEquals(List.of("workers,samples_per_second,batches"), table.subList(0, 1));
        assertEquals(2, table.size(), String.join("\n", table));
        assertTrue(table.get(1).startsWith("3,"), table.get(1));
        assertTrue(fs.getFileStatus(new Path(profile.getChartPath())).getLen() > 0, "a chart");
      }

      JobStatus scalingIn = am.scaleIn(1, List.of(), ScaleMode.EDL);
      assertEquals(JobState.SCALING, scalingIn.getState());
      assertEquals(2, scalingIn.getTargetWorkers());
      JobStatus two = Await.until("the newest worker to leave", am::status,
          s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 2
              && !s.getContainers().contains(newcomer));
      assertEquals(first, two.getContainers(), "the newest container was the one to go");
      assertTrue(two.getProgress().getStep() < STEPS, "it left before training ended");

      // YARN forgets a completed container at once (no timeline service here); the AM saw it end.
      assertTrue(two.getDiagnostics().startsWith("worker container " + newcomer + " on ")
          && two.getDiagnostics().endsWith(" left the job (SCALE_IN, exit status " + WorkerEnv.EXIT_LEFT + ")"), two.getDiagnostics());
    }
  }

  /** Runs the CLI against the embedded cluster; returns what it printed, failing on a non-zero exit. */
  static String cli(String... args) {
    List<String> a = new ArrayList<>(List.of(args));
    a.add(1, "--conf");
    a.add(2, CLUSTER.cluster().confDir().toString());
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int code = org.edl.cli.EdlCli.execute(a.toArray(String[]::new),
        new java.io.PrintStream(out, true, StandardCharsets.UTF_8), new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, String.join(" ", a) + " printed: " + text);
    return text;
  }
}
