package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.edl.job.JobSpec;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker slowed down in a running job, with workers as threads over real ZooKeeper and TCP:
 * the leader names it from the compute times the workers report and removes it by graceful
 * scale-in; the others stop only for that one switch and end with identical parameters.
 */
class StragglerRemovalTest {
  private static final String DATA = "synthetic:samples=600,features=12,classes=4,seed=11";
  private static final int STEPS = 100;
  private static final int WINDOW = 10;
  /** The first slow step: the first batches are slow for everybody (JIT, connections). */
  private static final long SLOW_FROM = 20;
  private static final AtomicInteger APPS = new AtomicInteger();
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @Test
  void theSlowWorkerIsRemovedWithinTheWindowAndTheOthersTrainOn() throws Exception {
    String appId = "application_9_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().name("stragglers").model("softmax").data(DATA).format("auto")
        .workers(4).minWorkers(2).maxWorkers(4).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(STEPS).batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.3).hidden(16).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).stragglers(1.2, WINDOW, false).build();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5))) {
      List<String> ids = new ArrayList<>();
      for (int i = 1; i <= 4; i++) {
        ids.add(ElasticJob.id(appId, i));
      }
      String slow = ids.get(2);
      // Everybody's batch is paced (so scheduling noise is small beside it); one worker's is
      // three times as long from SLOW_FROM on (a
      // shared test machine can delay a 10 ms sleep by a few ms; one such batch restarts the count).
      job.paceMillis = (id, step) -> id.equals(slow) && step >= SLOW_FROM ? 30 : 10;
      for (String id : ids) {
        job.start(id);
      }

      Worker.Outcome left = job.outcome(slow);
      assertEquals(Worker.Ending.LEFT, left.ending());
      long leftAfter = left.nextStep() - 1;
      // Named at the end of its WINDOW-th slow batch; the switch is a step or two later.
      long named = SLOW_FROM + WINDOW - 1;
      assertTrue(leftAfter > named && leftAfter <= named + 3,
          "removed after step " + leftAfter + ", slow from step " + SLOW_FROM + ", window " + WINDOW);

      List<Worker.Outcome> others = new ArrayList<>();
      for (String id : ids) {
        if (!id.equals(slow)) {
          others.add(job.outcome(id));
        }
      }
      for (Worker.Outcome o : others) {
        assertEquals(Worker.Ending.FINISHED, o.ending(), o.workerId());
        assertEquals(STEPS, o.nextStep(), o.workerId());
        assertEquals(3, o.workers(), o.workerId());
        List<SwitchRecord> switches = job.switches.getOrDefault(o.workerId(), List.of());
        assertEquals(1, switches.size(), o.workerId() + " stopped only for the one switch: " + switches);
        assertEquals(leftAfter, switches.get(0).atStep());
        assertEquals(SwitchRecord.Role.SURVIVOR, switches.get(0).role());
      }
      ElasticScalingTest.assertIdentical(others);
      ElasticScalingTest.assertEveryPositionOnce(job, STEPS * 24L);
      assertTrue(job.batches.stream().noneMatch(b -> b.workerId().equals(slow) && b.step() > leftAfter),
          "the straggler trained nothing after its last step");
    }
  }

  /**
   * The fault: one worker at 75% speed (a batch a third longer than the others'), above
   * the 1.2x threshold. Batches are paced at 60 ms so that a few milliseconds of scheduling noise
   * on a shared machine cannot push a healthy worker over the threshold or the slow one under it.
   */
  @Test
  void aWorkerAtThreeQuartersSpeedIsRemovedAndTheJobKeepsEverySample() throws Exception {
    String appId = "application_9_" + APPS.incrementAndGet();
    long steps = 60;
    JobSpec spec = JobSpec.builder().name("three-quarters").model("softmax").data(DATA).format("auto")
        .workers(3).minWorkers(2).maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(steps).batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.3).hidden(16).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).stragglers(1.2, WINDOW, false).build();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5))) {
      List<String> ids = List.of(ElasticJob.id(appId, 1), ElasticJob.id(appId, 2), ElasticJob.id(appId, 3));
      String slow = ids.get(1);
      job.paceMillis = (id, step) -> id.equals(slow) && step >= SLOW_FROM ? 80 : 60;
      ids.forEach(job::start);

      Worker.Outcome left = job.outcome(slow);
      assertEquals(Worker.Ending.LEFT, left.ending());
      long leftAfter = left.nextStep() - 1;
      long named = SLOW_FROM + WINDOW - 1;
      assertTrue(leftAfter > named && leftAfter <= named + 3,
          "removed after step " + leftAfter + ", slow from step " + SLOW_FROM + ", window " + WINDOW);
      List<Worker.Outcome> others = new ArrayList<>();
      for (String id : ids) {
        if (!id.equals(slow)) {
          others.add(job.outcome(id));
        }
      }
      for (Worker.Outcome o : others) {
        assertEquals(Worker.Ending.FINISHED, o.ending(), o.workerId());
        assertEquals(steps, o.nextStep(), o.workerId());
        assertEquals(2, o.workers(), o.workerId());
      }
      ElasticScalingTest.assertIdentical(others);
      // Graceful scale-in loses nothing: every sample position of every step trained exactly once.
      ElasticScalingTest.assertEveryPositionOnce(job, steps * 24L);
    }
  }
}
