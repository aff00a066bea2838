package org.edl.worker.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.ModelOutput;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.runtime.Worker;
import org.edl.worker.runtime.WorkerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The emulated backend: profile look-up, placement names, waits and the real parameter count. */
class EmulatedBackendTest {
  /** compute = step - sync: "1" at batch 10: 0.10 s, at 20: 0.18 s; "22" at 10: 0.25 s. */
  static final String CSV = """
      placement,local_bsz,step_time,sync_time
      1,10,0.11,0.01
      1,20,0.20,0.02
      22,10,0.40,0.15
      """;

  /** For the one test that runs a job (the only user of ZooKeeper here). */
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path dir;

  @Test
  void computeTimeIsStepMinusSyncInterpolatedOverTheBatch() throws Exception {
    StepProfile p = StepProfile.read("m", new StringReader(CSV));
    assertEquals(0.10, p.computeSeconds("1", 10), 1e-12);
    assertEquals(0.14, p.computeSeconds("1", 15), 1e-12);
    assertEquals(0.05, p.computeSeconds("1", 5), 1e-12, "proportional below the smallest batch");
    assertEquals(0.27, p.computeSeconds("1", 30), 1e-12, "proportional above the largest");
    assertEquals(0.25, p.computeSeconds("22", 10), 1e-12);
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> p.computeSeconds("5", 10));
    assertTrue(e.getMessage().contains("placement") && e.getMessage().contains("5"), e.getMessage());
    assertThrows(InvalidInputException.class, () -> StepProfile.read("m", new StringReader("a,b\n1,2\n")));
    InvalidInputException bad = assertThrows(InvalidInputException.class,
        () -> StepProfile.read("m", new StringReader("placement,local_bsz,step_time,sync_time\n1,x,0.1,0\n")));
    assertTrue(bad.getMessage().contains("line 2"), bad.getMessage());
    assertTrue(bad.getMessage().contains("field 'local_bsz' = 'x'"), bad.getMessage());
    InvalidInputException open = assertThrows(InvalidInputException.class, () -> StepProfile.read("m",
        "/p/m/placements.csv", new StringReader("placement,local_bsz,step_time,sync_time\n1,2,0.1,0\n\n\"1,2\n")));
    assertTrue(open.getMessage().startsWith("profile=/p/m/placements.csv line 4: "), open.getMessage());
  }

  @Test
  void placementIsGpusPerNodeAscending() {
    assertEquals("4", Placement.of(List.of("a", "a", "a", "a"), 1));
    assertEquals("13", Placement.of(List.of("b", "a", "b", "b"), 1));
    assertEquals("24", Placement.of(List.of("a", "b", "b"), 2));
    assertEquals("1", Placement.of(List.of("a"), 0), "a CPU worker stands for one GPU");
  }

  @Test
  void theModelHasTheRealSizeWaitsAsProfiledAndSaysItIsAnEmulation() throws Exception {
    Files.createDirectories(dir.resolve("cifar10"));
    Files.writeString(dir.resolve("cifar10/placements.csv"), CSV);
    JobSpec spec = spec("cifar10", 2);
    List<Long> waits = new ArrayList<>();
    EmulatedModel m = EmulatedModels.create(spec, dir, waits::add);
    assertEquals("emulated:cifar10", m.name());
    assertEquals(11_173_962, m.parameters().length);
    m.placedOn("22");
    float[] grad = new float[m.parameters().length];
    double loss = m.accumulateGradients(null, new int[20], 0, 20, grad);
    assertTrue(Double.isNaN(loss), "an emulation has no loss");
    assertEquals(List.of(250_000_000L), waits, "20 samples on 2 GPUs: 10 per GPU at placement 22");
    assertEquals(0f, grad[12345]);
    InvalidInputException notMeasured = assertThrows(InvalidInputException.class, () -> m.placedOn("44"));
    assertEquals("22", m.placement(), "a failed placement changes nothing");
    assertTrue(notMeasured.getMessage().contains("44"));
  }

  @Test
  void twoNodeManagersOnOneHostAreTwoNodesOfThePlacement() {
    assertEquals("44", Placement.of(List.of("localhost:40001", "localhost:40001", "localhost:40001",
        "localhost:40001", "localhost:40002", "localhost:40002", "localhost:40002", "localhost:40002"), 1));
  }

  /** --emulated-sync profile: the whole measured step is waited, and only a token is all-reduced. */
  @Test
  void theProfilesSyncTimeCanStandInForTheGradientTransfer() throws Exception {
    Files.createDirectories(dir.resolve("cifar10"));
    Files.writeString(dir.resolve("cifar10/placements.csv"), CSV);
    JobSpec spec = spec("cifar10", 2).toBuilder().profileSync(true).build();
    List<Long> waits = new ArrayList<>();
    EmulatedModel m = EmulatedModels.create(spec, dir, waits::add);
    assertEquals(11_173_962, m.parameters().length, "the broadcast to newcomers still moves the real size");
    assertEquals(EmulatedModel.TOKEN_GRADIENT, m.gradientLength());
    m.placedOn("22");
    m.accumulateGradients(null, new int[20], 0, 20, new float[m.gradientLength()]);
    assertEquals(List.of(400_000_000L), waits, "compute and sync: the whole 0.40 s step at placement 22");
    assertEquals(m.parameters().length, EmulatedModels.create(spec("cifar10", 2), dir, waits::add).gradientLength(),
        "without the stand-in the real gradient moves");
    InvalidInputException cpu = assertThrows(InvalidInputException.class, () -> spec.toBuilder().model("mlp")
        .backend("cpu").build());
    assertEquals("emulated-sync", cpu.field());
    assertTrue(spec.equals(JobSpec.fromProperties(spec.toProperties())), "job.properties keeps the stand-in");
  }

  @Test
  void withoutAProfilesDirectoryTheWorkerReadsTheProfilesItsJarCarries() throws Exception {
    for (String model : JobSpec.EMULATED_MODELS) {
      StepProfile p = EmulatedModels.profile(model, null);
      assertTrue(p.measured("4"), model + " on one node of 4 GPUs");
      assertTrue(p.stepSeconds("4", 32) >= p.computeSeconds("4", 32), model);
    }
    EmulatedModel m = EmulatedModels.create(spec("cifar10", 1), null, n -> {});
    assertEquals("emulated:cifar10", m.name());
    InvalidInputException none = assertThrows(InvalidInputException.class,
        () -> EmulatedModels.profile("ncf-missing", null));
    assertTrue(none.getMessage().contains("classpath:org/edl/worker/emulated/profiles/ncf-missing/placements.csv"),
        none.getMessage());
  }

  @Test
  void onlyProfiledModelsWithAKnownSizeAreEmulated() {
    InvalidInputException softmax = assertThrows(InvalidInputException.class, () -> spec("softmax", 0));
    assertTrue(softmax.getMessage().contains("emulated"), softmax.getMessage());
    assertThrows(InvalidInputException.class, () -> spec("ncf", 0));
    InvalidInputException cpu = assertThrows(InvalidInputException.class, () -> JobSpec.builder().name("t")
        .model("imagenet").data("synthetic:samples=8,features=2,classes=2,seed=1").format("auto").workers(1)
        .minWorkers(1).maxWorkers(1).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(3)
        .batchSize(4).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.1).hidden(4).seed(1)
        .backend("cpu").build());
    assertEquals("model", cpu.field());
    InvalidInputException noProfile = assertThrows(InvalidInputException.class,
        () -> EmulatedModels.create(spec("bert", 0), dir, n -> {}));
    assertTrue(noProfile.getMessage().contains("placements.csv"), noProfile.getMessage());
  }

  /** Two workers through the real runtime: the real-size gradient crosses the ring each step. */
  @Test
  void aJobOnTheEmulatedBackendRunsAndIsNamedAsEmulation() throws Exception {
    Path profiles = dir.resolve("profiles");
    Files.createDirectories(profiles.resolve("cifar10"));
    Files.writeString(profiles.resolve("cifar10/placements.csv"), """
        placement,local_bsz,step_time,sync_time
        2,4,0.003,0.001
        2,8,0.005,0.001
        """);
    JobSpec spec = JobSpec.builder().name("t").model("cifar10")
        .data("synthetic:samples=64,features=2,classes=2,seed=1").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(3).batchSize(8)
        .batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.1).hidden(4).seed(1).backend("emulated")
        .output(dir.resolve("out").toUri().toString()).build();
    JobSecret secret = JobSecret.generate();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    List<Worker> workers = new ArrayList<>();
    try {
      List<Future<Worker.Outcome>> outcomes = new ArrayList<>();
      for (int i = 1; i <= 2; i++) {
        Worker w = new Worker(WorkerConfig.of("application_5_1", "container_5_1_0" + i, "127.0.0.1",
            ZK.connectString(), null, spec, secret, new Configuration())
            .withStartupTimeout(Duration.ofSeconds(60)).withProfilesDir(profiles));
        workers.add(w);
        outcomes.add(threads.submit(w::run));
      }
      for (Future<Worker.Outcome> f : outcomes) {
        Worker.Outcome o = f.get(120, TimeUnit.SECONDS);
        assertEquals(3, o.steps());
        assertEquals(11_173_962, o.parameters().length);
      }
    } finally {
      workers.forEach(Worker::close);
      threads.shutdownNow();
    }
    ModelOutput.Metrics metrics = ModelOutput.readMetrics(new org.apache.hadoop.conf.Configuration(),
        dir.resolve("out").toUri().toString());
    assertEquals("emulated:cifar10", metrics.model());
  }

  static JobSpec spec(String model, int gpus) {
    return JobSpec.builder().name("t").model(model).data("synthetic:samples=64,features=2,classes=2,seed=1")
        .format("auto").workers(1).minWorkers(1).maxWorkers(4).gpusPerWorker(gpus).workerMemoryMb(512)
        .workerVcores(1).steps(3).batchSize(20).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.1)
        .hidden(4).seed(1).backend("emulated").build();
  }
}
