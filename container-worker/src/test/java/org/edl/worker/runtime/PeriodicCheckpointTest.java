package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.JobSpec;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two workers as threads over real ZooKeeper and TCP train with a checkpoint every few batches:
 * the leader's checkpoints appear under {@code <output>/checkpoints/periodic}, complete and
 * verifying, the last K of them kept, and a job restored from the newest one starts at its step.
 */
class PeriodicCheckpointTest {
  private static final String DATA = "synthetic:samples=400,features=10,classes=3,seed=5";
  private static final long STEPS = 40;
  private static final int EVERY = 6;
  private static final int KEPT = 2;
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @Test
  void theLeaderWritesACheckpointEveryFewBatchesAndKeepsTheLastK() throws Exception {
    String appId = "application_9_1";
    String output = out.resolve(appId).toUri().toString();
    JobSpec spec = JobSpec.builder().name("periodic").model("softmax").data(DATA).format("auto").workers(2)
        .minWorkers(1).maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(4).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(16).seed(3)
        .backend("cpu").output(output).checkpoints(EVERY, 0, KEPT).build();
    List<String> ids = List.of(ElasticJob.id(appId, 1), ElasticJob.id(appId, 2));
    List<Worker.Outcome> outcomes = new ArrayList<>();
    List<String> written;
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ZERO)) {
      // Paced so that each write finishes before training reaches the next one's step: then
      // exactly the scheduled steps are written (a due one waits while a write is in flight).
      ids.forEach(job::start);
      for (int k = 1; k * EVERY < STEPS; k++) {
        job.holdBefore(k * EVERY + 1);
        job.awaitCheckpoints(k);
      }
      job.release();
      for (String w : ids) {
        outcomes.add(job.outcome(w));
      }
      written = List.copyOf(job.checkpoints);
    }
    ElasticScalingTest.assertIdentical(outcomes);
    outcomes.forEach(o -> assertEquals(Worker.Ending.FINISHED, o.ending()));

    String directory = PeriodicCheckpoints.directoryUnder(output);
    assertEquals(List.of(6L, 12L, 18L, 24L, 30L, 36L), written.stream()
        .map(p -> Long.parseLong(p.substring(p.lastIndexOf('-') + 1))).toList(), "next steps of " + written);
    Configuration conf = new Configuration();
    List<org.apache.hadoop.fs.Path> kept = CheckpointDirectory.list(conf, directory);
    assertEquals(written.subList(written.size() - KEPT, written.size()), kept.stream().map(Object::toString).toList(),
        "the last " + KEPT + " are kept, older ones deleted");
    long previous = 0;
    for (org.apache.hadoop.fs.Path p : kept) {
      Checkpoint c = Checkpoint.read(conf, p.toString());
      c.verify();
      CheckpointMeta m = c.meta();
      assertEquals(2, m.workers());
      assertTrue(m.nextStep() - previous >= EVERY, "next step " + m.nextStep());
      assertEquals(m.nextStep() * 2 * 4, m.samplesSeen());
      previous = m.nextStep();
    }
    try (var files = java.nio.file.Files.list(out.resolve(appId).resolve("checkpoints").resolve("periodic"))) {
      assertEquals(KEPT, files.count(), "the kept checkpoints and no write left in progress");
    }

    // The newest checkpoint holds the parameters every worker had after its step: a job restored
    // from it (the directory: its newest) finishes with the parameters of the job that wrote it.
    Checkpoint newest = CheckpointDirectory.readNewestValid(conf, directory);
    String resumed = "application_9_2";
    JobSpec again = spec.toBuilder().output(out.resolve(resumed).toUri().toString()).checkpoints(0, 0, KEPT).build();
    List<Worker.Outcome> second = new ArrayList<>();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), resumed, again, Duration.ZERO)) {
      for (int i = 1; i <= 2; i++) {
        job.start(ElasticJob.id(resumed, i), ExecutionContext.FROM_SPEC, directory);
      }
      for (int i = 1; i <= 2; i++) {
        second.add(job.outcome(ElasticJob.id(resumed, i)));
      }
      assertTrue(job.checkpoints.isEmpty(), "0 and 0: no periodic checkpoints");
    }
    for (Worker.Outcome o : second) {
      assertEquals(newest.meta().nextStep(), o.firstStep());
      assertEquals(STEPS, o.nextStep());
      assertArrayEquals(outcomes.get(0).parameters(), o.parameters(),
          "resumed from the checkpoint, the same steps give the same parameters");
    }
  }
}
