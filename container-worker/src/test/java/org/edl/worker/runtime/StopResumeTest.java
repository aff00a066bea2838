package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.JobSpec;
import org.edl.job.WorkerEnv;
import org.edl.testing.ForwardingModel;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.thrift.StopOrder;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.SyntheticData;
import org.edl.worker.model.ModelFactory;
import org.edl.worker.model.TrainableModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stop-resume baseline with workers as threads over real ZooKeeper and TCP, the checkpoint
 * on the local file system through Hadoop's FileSystem: the job stops at a scheduled step with a
 * checkpoint, and a job of another size restarts from it at the next step.
 */
class StopResumeTest {
  private static final int SAMPLES = 600;
  private static final String DATA = "synthetic:samples=" + SAMPLES + ",features=12,classes=4,seed=11";
  private static final int PER_WORKER = 4;
  private static final long STEPS = 80;
  private static final AtomicInteger APPS = new AtomicInteger();
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  private JobSpec spec(String appId, int workers) {
    return JobSpec.builder().name("stop-resume").model("softmax").data(DATA).format("auto").workers(workers)
        .minWorkers(1).maxWorkers(4).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(PER_WORKER).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(16).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).build();
  }

  /**
   * 3 workers stop at a scheduled step with a checkpoint; the same application relaunches with
   * 2 workers that start at the next step with the checkpoint's parameters and finish the job.
   * Across the restart every sample of the first epoch is trained exactly once.
   */
  @Test
  void threeWorkersStopWithACheckpointAndTwoFinishTheJobFromIt() throws Exception {
    String appId = "application_8_" + APPS.incrementAndGet();
    String directory = out.resolve("checkpoints").toUri().toString();
    List<String> first = List.of(ElasticJob.id(appId, 1), ElasticJob.id(appId, 2), ElasticJob.id(appId, 3));
    List<ElasticJob.Batch> trained = new ArrayList<>();
    StopOrder order;
    Worker.Outcome stoppedLeader;
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec(appId, 3), Duration.ZERO)) {
      job.holdBefore(20);
      first.forEach(job::start);
      for (String w : first) {
        job.awaitTrained(w, 19);
      }
      order = job.stopForRestart(directory);
      assertEquals(20, order.getAtStep(), "t + k: step 19 done by all, k = 1 with T_a = 0");
      assertEquals(order, job.stopForRestart(directory), "asked twice: the same stop");
      job.release();

      List<Worker.Outcome> outcomes = new ArrayList<>();
      for (String w : first) {
        Worker.Outcome o = job.outcome(w);
        assertEquals(Worker.Ending.STOPPED, o.ending(), w);
        assertEquals(order.getAtStep() + 1, o.nextStep(), w + " trained through the stop step, no further");
        assertTrue(o.output().isEmpty(), "a stopped job writes no final model");
        StopRecord r = job.stops.get(w);
        assertEquals(order.getAtStep(), r.atStep());
        assertEquals(3, r.workers());
        assertTrue(r.endNanos() >= r.startNanos());
        assertEquals(r, o.stop().orElseThrow());
        outcomes.add(o);
      }
      ElasticScalingTest.assertIdentical(outcomes);
      List<Worker.Outcome> writers = outcomes.stream().filter(o -> o.stop().orElseThrow().checkpoint().isPresent())
          .toList();
      assertEquals(1, writers.size(), "the leader alone writes the checkpoint");
      stoppedLeader = writers.get(0);
      assertTrue(stoppedLeader.leader());
      assertTrue(job.batches.stream().noneMatch(b -> b.step() > order.getAtStep()));
      trained.addAll(job.batches);
    }

    Checkpoint checkpoint = Checkpoint.read(new Configuration(), directory);
    assertEquals(stoppedLeader.stop().orElseThrow().checkpoint().orElseThrow(), checkpoint.path().toString());
    CheckpointMeta meta = checkpoint.meta();
    assertEquals(order.getAtStep() + 1, meta.nextStep());
    assertEquals(3, meta.workers());
    assertEquals((order.getAtStep() + 1) * 3 * PER_WORKER, meta.samplesSeen());
    assertEquals(BatchRule.FIXED_PER_WORKER, meta.batchRule());
    assertEquals("softmax", meta.model());
    assertEquals(SAMPLES, meta.epochSize());
    assertTrue(Files.isRegularFile(Path.of(checkpoint.path().toUri()).resolve(Checkpoint.COMPLETE_MARKER)));

    // The relaunch: same application, two new containers, both told where the checkpoint is.
    List<String> second = List.of(ElasticJob.id(appId, 4), ElasticJob.id(appId, 5));
    Map<String, float[]> startParameters = new ConcurrentHashMap<>();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec(appId, 3).withWorkers(2), Duration.ZERO)) {
      for (String w : second) {
        job.start(w, config -> {
          ExecutionContext c = ExecutionContext.FROM_SPEC.prepare(config);
          return new ExecutionContext(c.data(), new FirstBatchWatch(c.model(), p -> startParameters.put(w, p)));
        }, directory);
      }
      List<Worker.Outcome> outcomes = new ArrayList<>();
      for (String w : second) {
        Worker.Outcome o = job.outcome(w);
        assertEquals(Worker.Ending.FINISHED, o.ending());
        assertEquals(meta.nextStep(), o.firstStep(), w + " starts at the step after the stop");
        assertEquals(STEPS, o.nextStep());
        assertEquals(2, o.workers());
        assertArrayEquals(stoppedLeader.parameters(), startParameters.get(w),
            w + " trained its first batch with the checkpoint's parameters");
        outcomes.add(o);
      }
      ElasticScalingTest.assertIdentical(outcomes);
      assertEquals(1, outcomes.stream().filter(o -> o.output().isPresent()).count(), "the new leader writes the model");
      assertTrue(job.batches.stream().allMatch(b -> b.step() >= meta.nextStep()));
      trained.addAll(job.batches);
    }

    // Exactly once across the restart: positions tile [0, end), each step's global batch follows
    // the batch rule at that step's size, and every sample of the first epoch is trained once.
    Map<Long, List<ElasticJob.Batch>> bySteps = trained.stream().collect(Collectors.groupingBy(ElasticJob.Batch::step));
    assertEquals(STEPS, bySteps.size());
    long end = 0;
    for (long step = 0; step < STEPS; step++) {
      List<ElasticJob.Batch> batch = bySteps.get(step);
      assertEquals(step <= order.getAtStep() ? 3 : 2, batch.size(), "workers of step " + step);
      int global = batch.stream().mapToInt(x -> x.positions().length()).sum();
      assertEquals(PER_WORKER * batch.size(), global, "step " + step);
      end += global;
    }
    assertTrue(end > SAMPLES, "the run covers the whole first epoch");
    List<org.edl.worker.data.BatchSlicer.Range> ranges = trained.stream().map(ElasticJob.Batch::positions)
        .filter(r -> r.length() > 0).sorted((a, b) -> Long.compare(a.from(), b.from())).toList();
    long next = 0;
    for (var r : ranges) {
      assertEquals(next, r.from(), "gap or overlap at position " + next);
      next = r.to();
    }
    assertEquals(end, next);
    int[] seen = new int[SAMPLES];
    for (ElasticJob.Batch x : trained) {
      for (int i = 0; i < x.samples().length; i++) {
        if (x.positions().from() + i < SAMPLES) {
          seen[x.samples()[i]]++;
        }
      }
    }
    for (int i = 0; i < SAMPLES; i++) {
      assertEquals(1, seen[i], "sample " + i + " in the first epoch");
    }
  }

  /**
   * A checkpoint written as a periodic one would be (not by a stop): the restoring worker leads,
   * and a worker started without the checkpoint is refused before it forms a ring with it.
   */
  @Test
  void aWorkerWithoutTheCheckpointCannotJoinARestartedJobsFirstRing() throws Exception {
    String appId = "application_8_" + APPS.incrementAndGet();
    JobSpec spec = spec(appId, 2);
    TrainableModel model = ModelFactory.create(spec, SyntheticData.generate(DATA));
    String directory = out.resolve("periodic").toUri().toString();
    Checkpoint.write(new Configuration(), directory, new CheckpointMeta(30, 0, List.of(), 30 * 8,
        BatchRule.FIXED_PER_WORKER, PER_WORKER, 0.05, 0.9, 2, model.name(), model.parameters().length, SAMPLES,
        3, java.time.Instant.now()), model);
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ZERO)) {
      String restoring = ElasticJob.id(appId, 1);
      String fresh = ElasticJob.id(appId, 2);
      job.start(restoring, ExecutionContext.FROM_SPEC, directory);
      // Alone in the election, the restoring worker leads.
      job.awaitRegistered(restoring);
      job.start(fresh);
      ExecutionException e = assertThrows(ExecutionException.class, () -> job.outcome(fresh));
      String message = e.getCause().getMessage();
      assertTrue(message.contains("restarts at step 30") && message.contains("without " + WorkerEnv.RESTORE_FROM),
          message);
      assertTrue(job.batches.isEmpty(), "nobody trained");
    }
  }

  @Test
  void aRelaunchSizeOutsideTheJobsBoundsIsRefused() {
    org.edl.job.InvalidInputException e = assertThrows(org.edl.job.InvalidInputException.class,
        () -> spec("a", 3).withWorkers(5));
    assertEquals("max-workers", e.field());
  }

  @Test
  void aWorkerToldToRestoreFromNothingSaysWhere() throws Exception {
    String appId = "application_8_" + APPS.incrementAndGet();
    String missing = out.resolve("no-such-checkpoint").toUri().toString();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec(appId, 1), Duration.ZERO)) {
      String w = ElasticJob.id(appId, 1);
      job.start(w, ExecutionContext.FROM_SPEC, missing);
      ExecutionException e = assertThrows(ExecutionException.class, () -> job.outcome(w));
      assertTrue(e.getCause() instanceof IOException, e.getCause().toString());
      String message = e.getCause().getMessage();
      assertTrue(message.startsWith(WorkerEnv.RESTORE_FROM + "=" + missing + ": cannot restore"), message);
      assertTrue(message.contains("does not exist"), message);
    }
  }

  /** The model as the worker trains it; hands over its parameters as they are at the first batch. */
  private static final class FirstBatchWatch extends ForwardingModel {
    private final java.util.function.Consumer<float[]> atFirstBatch;
    private boolean seen;

    FirstBatchWatch(TrainableModel model, java.util.function.Consumer<float[]> atFirstBatch) {
      super(model);
      this.atFirstBatch = atFirstBatch;
    }

    @Override
    public double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum) {
      if (!seen) {
        seen = true;
        atFirstBatch.accept(model.parameters().clone());
      }
      return model.accumulateGradients(data, samples, from, to, gradSum);
    }
  }
}
