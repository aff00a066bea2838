package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.Script;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.testing.Await;
import org.edl.testing.PythonTorch;
import org.edl.testing.YarnCluster;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ScaleMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's PyTorch script on YARN, as `edl submit --script` sends it: shipped through the staging
 * directory with its data on HDFS, started by every worker container as its child, grown by one
 * worker stop-free while it trains; every member, the newcomer too, ends with the parameters one
 * worker alone ends with on the same global batch.
 */
class ScriptEndToEndTest {
  static final String PYTHON = PythonTorch.PYTHON;
  static final String SCRIPT = """
      import csv, os, sys, time, torch, edl
      rows = [[float(v) for v in r] for r in csv.reader(open(os.environ["EDL_DATA"]))]
      x = torch.tensor([r[1:] for r in rows])
      y = torch.tensor([int(r[0]) for r in rows])
      job = edl.init(dataset_size=len(x))
      assert job.data == os.environ["EDL_DATA"]
      torch.manual_seed(job.seed)
      model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
      opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
      job.attach(model, opt)
      for step in job.steps():
          opt.zero_grad()
          loss = torch.nn.functional.cross_entropy(job.model(x[step.samples]), y[step.samples], reduction="sum")
          step.backward(loss)
          opt.step()
          step.done(loss.item())
          time.sleep(float(sys.argv[2]))
      with open(os.path.join(sys.argv[1], job.worker_id + ".txt"), "w") as f:
          f.write(" ".join(repr(v) for v in torch.cat([p.detach().flatten() for p in model.parameters()]).tolist()))
      """;

  /**
   * Steps of both runs. The grown run sleeps 10 ms a step, and on a 2-core machine its third
   * worker is in the ring by about step 400; what comes after only waits for the last step.
   */
  private static final long STEPS = 1_000;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  @TempDir
  Path dir;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  @Test
  void aScriptJobGrowsByOneWorkerStopFreeAndEveryMemberEndsWhereOneWorkerAloneEnds() throws Exception {
    Path script = dir.resolve("train.py");
    Files.writeString(script, SCRIPT);
    Path params = Files.createDirectories(dir.resolve("params"));
    // The data on HDFS, as --data names it: every worker copies it before it starts the script.
    org.apache.hadoop.fs.Path data = CLUSTER.home("script-e2e.csv");
    java.util.Random random = new java.util.Random(7);
    StringBuilder csv = new StringBuilder();
    for (int i = 0; i < 256; i++) {
      double[] v = random.doubles(6, -1, 1).toArray();
      csv.append(java.util.Arrays.stream(v).sum() > 0 ? 1 : 0);
      for (double d : v) {
        csv.append(',').append(d);
      }
      csv.append('\n');
    }
    try (java.io.OutputStream out = CLUSTER.fileSystem().create(data)) {
      out.write(csv.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    JobSpec spec = JobSpec.builder().name("script-e2e").data(data.toString())
        .script(new Script(script.toString(), List.of(params.toString(), "0.01"), PYTHON))
        .workers(2).minWorkers(2).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(32).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(1).backend("cpu").build();

    // The reference: one worker, the same global batch.
    Path aloneParams = Files.createDirectories(dir.resolve("alone"));
    SubmittedJob alone = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec.toBuilder()
        .script(new Script(script.toString(), List.of(aloneParams.toString(), "0"), PYTHON))
        .workers(1).minWorkers(1).maxWorkers(1).build());
    ApplicationReport aloneEnd = CLUSTER.awaitEnd(alone.appId());
    assertEquals(FinalApplicationStatus.SUCCEEDED, aloneEnd.getFinalApplicationStatus(), aloneEnd.getDiagnostics());
    double[] expected;
    try (Stream<Path> s = Files.list(aloneParams)) {
      expected = numbers(Files.readString(s.findFirst().orElseThrow()));
    }

    SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
    ApplicationReport running = Await.until("the AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
    try (RpcConnection connection = RpcClient.open(running.getHost(), running.getRpcPort(), job.secret(),
        Duration.ofSeconds(30))) {
      JobControl.Client am = new JobControl.Client(connection.protocol());
      Await.until("two workers training", am::status, s -> s.getState() == JobState.RUNNING && s.isSetProgress()
          && s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 5);
      am.scaleOut(1, ScaleMode.EDL);
      JobStatus three = Await.until("three workers training", am::status,
          s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 3);
      assertTrue(three.getProgress().getStep() < STEPS, "it grew before training ended");
    } catch (Throwable t) {
      t.addSuppressed(new AssertionError("application diagnostics: " + CLUSTER.awaitEnd(job.appId()).getDiagnostics()));
      throw t;
    }
    ApplicationReport end = CLUSTER.awaitEnd(job.appId());
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
    List<Path> written;
    try (Stream<Path> s = Files.list(params)) {
      written = s.sorted().toList();
    }
    assertEquals(3, written.size(), "every member's script wrote its parameters: " + written);
    for (Path p : written) {
      double[] got = numbers(Files.readString(p));
      assertEquals(expected.length, got.length, p.getFileName().toString());
      for (int i = 0; i < got.length; i++) {
        assertEquals(expected[i], got[i], 1e-4, p.getFileName() + ": parameter " + i + " against one worker alone");
      }
    }
  }

  /**
   * {@code --python-env}: a venv packed as a .tar.gz (with the system's packages, so torch and thrift
   * come from the machine here) is uploaded once to the user's {@code .edl/python-envs}, unpacked
   * by YARN into the worker's directory, and the script runs on its interpreter; a second job with
   * the same archive reuses the uploaded file.
   */
  @Test
  void aScriptRunsOnTheShippedPythonEnvironmentUploadedOnce() throws Exception {
    Path venv = dir.resolve("venv");
    run(PYTHON, "-m", "venv", "--without-pip", "--system-site-packages", venv.toString());
    Path archive = dir.resolve("env.tar.gz");
    run("tar", "-C", venv.toString(), "-czf", archive.toString(), ".");
    Path script = dir.resolve("where.py");
    Files.writeString(script, """
        import os, sys, torch, edl
        job = edl.init(dataset_size=8)
        model = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        job.attach(model, opt)
        for step in job.steps():
            step.done(0.0)
        with open(os.path.join(sys.argv[1], job.worker_id + ".txt"), "w") as f:
            f.write(sys.prefix)
        """);
    Path prefixes = Files.createDirectories(dir.resolve("prefixes"));
    JobSpec spec = JobSpec.builder().name("script-env").script(new Script(script.toString(),
            List.of(prefixes.toString()), org.edl.job.Script.ENV_PYTHON, 0, archive.toString()))
        .workers(1).minWorkers(1).maxWorkers(1).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(5)
        .batchSize(4).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(1).backend("cpu").build();
    org.apache.hadoop.fs.Path uploaded = null;
    long firstUpload = -1;
    for (int round = 0; round < 2; round++) {
      SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
      ApplicationReport end = CLUSTER.awaitEnd(job.appId());
      assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
      org.apache.hadoop.fs.FileStatus[] envs = CLUSTER.fileSystem().listStatus(CLUSTER.home(".edl/python-envs"));
      assertEquals(1, envs.length, java.util.Arrays.toString(envs));
      if (round == 0) {
        uploaded = envs[0].getPath();
        firstUpload = envs[0].getModificationTime();
        assertTrue(uploaded.getName().endsWith("-env.tar.gz"), uploaded.toString());
      } else {
        assertEquals(uploaded, envs[0].getPath());
        assertEquals(firstUpload, envs[0].getModificationTime(), "the second job reused the archive");
      }
    }
    List<Path> written;
    try (Stream<Path> s = Files.list(prefixes)) {
      written = s.toList();
    }
    assertEquals(2, written.size(), written.toString());
    for (Path p : written) {
      assertTrue(Files.readString(p).endsWith("/" + org.edl.job.Script.ENV_DIR), "the script's sys.prefix: "
          + Files.readString(p));
    }
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", command) + ": " + out);
  }

  private static double[] numbers(String text) {
    return java.util.Arrays.stream(text.trim().split(" ")).mapToDouble(Double::parseDouble).toArray();
  }
}
