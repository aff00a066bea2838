package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.ModelOutput;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.DatasetLoader;
import org.edl.worker.model.ModelFactory;
import org.edl.worker.model.TrainableModel;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * N workers, as threads of one JVM over real ZooKeeper and real TCP, train to the same
 * parameters as one worker with the same global batch: data parallelism changes where a
 * gradient is summed, not what it sums to.
 */
class DataParallelTrainingTest {
  private static final String DATA = "synthetic:samples=600,features=12,classes=4,seed=11";
  private static final int STEPS = 30;
  private static final int GLOBAL_BATCH = 48;
  private static final float RELATIVE_TOLERANCE = 1e-4f;
  private static final AtomicInteger APPS = new AtomicInteger();

  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @ParameterizedTest(name = "{0} with {1} workers")
  @CsvSource({"softmax,2", "softmax,3", "softmax,4", "mlp,2", "mlp,3", "mlp,4"})
  void nWorkersReachTheParametersOfOne(String model, int workers) throws Exception {
    List<Worker.Outcome> single = train(model, 1);
    List<Worker.Outcome> parallel = train(model, workers);

    float[] reference = single.get(0).parameters();
    assertEquals(workers, parallel.size());
    for (Worker.Outcome o : parallel) {
      assertEquals(STEPS, o.steps());
      assertEquals(workers, o.workers());
      assertClose(reference, o.parameters(), o.workerId());
    }
    // Every rank once, one leader, and it wrote what it trained.
    assertEquals(List.of(0, 1, 2, 3).subList(0, workers),
        parallel.stream().map(Worker.Outcome::rank).sorted().toList());
    List<Worker.Outcome> leaders = parallel.stream().filter(Worker.Outcome::leader).toList();
    assertEquals(1, leaders.size());
    Worker.Outcome leader = leaders.get(0);
    assertTrue(parallel.stream().filter(o -> !o.leader()).allMatch(o -> o.output().isEmpty()));

    Path dir = out.resolve(model + "-" + workers);
    TrainableModel restored = freshModel(model);
    try (DataInputStream in = new DataInputStream(Files.newInputStream(dir.resolve(ModelOutput.MODEL_FILE)))) {
      restored.readState(in);
    }
    assertArrayEquals(leader.parameters(), restored.parameters());

    ModelOutput.Metrics metrics = ModelOutput.readMetrics(new Configuration(), dir.toUri().toString());
    assertEquals(model, metrics.model());
    assertEquals(workers, metrics.workers());
    assertEquals(STEPS, metrics.steps());
    assertTrue(metrics.lastLoss() < metrics.firstLoss(), "loss did not fall: " + metrics);
    assertEquals(java.util.Optional.empty(), ModelOutput.verify(new Configuration(), dir.toUri().toString(), STEPS));
  }

  /** Runs {@code workers} workers of one fresh job to the end and returns their outcomes. */
  private List<Worker.Outcome> train(String model, int workers) throws Exception {
    String appId = "application_1_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().name("test").model(model).data(DATA).format("auto").workers(workers)
        .minWorkers(1).maxWorkers(4).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(GLOBAL_BATCH).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.5).hidden(16).seed(3)
        .backend("cpu").output(out.resolve(model + "-" + workers).toUri().toString()).build();
    JobSecret secret = JobSecret.generate();
    ExecutorService threads = Executors.newFixedThreadPool(workers);
    List<Worker> running = new ArrayList<>();
    List<Future<Worker.Outcome>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < workers; i++) {
        WorkerConfig config = WorkerConfig.of(appId, String.format("container_%s_%02d", appId, i + 1),
            "127.0.0.1", ZK.connectString(), null, spec, secret, new Configuration())
            .withStartupTimeout(Duration.ofSeconds(60));
        Worker w = new Worker(config);
        running.add(w);
        futures.add(threads.submit(w::run));
      }
      List<Worker.Outcome> outcomes = new ArrayList<>();
      for (Future<Worker.Outcome> f : futures) {
        outcomes.add(f.get(120, TimeUnit.SECONDS));
      }
      return outcomes;
    } finally {
      running.forEach(Worker::close);
      threads.shutdownNow();
    }
  }

  private static TrainableModel freshModel(String model) throws Exception {
    Dataset d = DatasetLoader.load(DATA, "auto", new Configuration());
    return ModelFactory.create(model, d.featureCount(), d.classCount(), 16, 99);
  }

  private static void assertClose(float[] expected, float[] actual, String who) {
    assertEquals(expected.length, actual.length);
    float scale = 0;
    for (float v : expected) {
      scale = Math.max(scale, Math.abs(v));
    }
    for (int i = 0; i < expected.length; i++) {
      float tolerance = RELATIVE_TOLERANCE * Math.max(Math.abs(expected[i]), scale * 1e-2f);
      assertEquals(expected[i], actual[i], tolerance, who + ": parameter " + i);
    }
  }

}
