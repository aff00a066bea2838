package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.edl.job.JobSpec;
import org.edl.job.ModelOutput;
import org.edl.testing.Await;
import org.edl.testing.HdfsCluster;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DataNodes stop while the leader is writing a periodic checkpoint to a real HDFS (MiniDFSCluster,
 * four DataNodes, replication 3): the write goes on through the surviving DataNodes (the HDFS
 * client rebuilds its pipeline), the job trains to its end, and nothing the job wrote is lost:
 * every checkpoint, the one being written included, reads back and verifies, and so does the model.
 */
class CheckpointDataNodeLossTest {
  private static final String DATA = "synthetic:samples=200,features=800,classes=4,seed=3";
  private static final long STEPS = 30;
  private static final int EVERY = 8;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(4);

  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @Test
  void aCheckpointBeingWrittenSurvivesTwoDataNodesStoppingAndNothingIsLost() throws Exception {
    String appId = "application_9_41";
    String output = HDFS.uri("/user/edl/" + appId);
    // About 3.2 million parameters (13 MB): a write that lasts long enough to be interrupted.
    JobSpec spec = JobSpec.builder().name("datanode-loss").model("mlp").data(DATA).format("auto").workers(2)
        .minWorkers(1).maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(4).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(4000).seed(3)
        .backend("cpu").output(output).checkpoints(EVERY, 0, 10).build();
    List<String> ids = List.of(ElasticJob.id(appId, 1), ElasticJob.id(appId, 2));
    List<Worker.Outcome> outcomes = new ArrayList<>();
    List<String> written;
    String directory = PeriodicCheckpoints.directoryUnder(output);
    Configuration conf = HDFS.configuration();
    FileSystem fs = HDFS.fileSystem();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ZERO)) {
      // Held after the checkpoint's step: the leader's writer runs while the workers wait.
      job.holdBefore(EVERY + 1);
      ids.forEach(job::start);
      awaitWriteInProgress(fs, new org.apache.hadoop.fs.Path(directory));
      // Three of the four DataNodes hold each block: stopping two stops at least one in the pipeline.
      HDFS.cluster().stopDataNode(0);
      HDFS.cluster().stopDataNode(0);
      // Each next checkpoint once the one before is done (a due one waits while a write is in
      // flight), so that the job writes the same checkpoints whatever the pipeline recovery costs.
      for (int k = 1; k * EVERY < STEPS; k++) {
        job.holdBefore(k * EVERY + 1);
        job.awaitCheckpoints(k);
      }
      job.release();
      for (String w : ids) {
        outcomes.add(job.outcome(w));
      }
      written = List.copyOf(job.checkpoints);
      ElasticScalingTest.assertEveryPositionOnce(job, STEPS * 2 * 4);
    }
    outcomes.forEach(o -> assertEquals(Worker.Ending.FINISHED, o.ending(), o.workerId()));
    ElasticScalingTest.assertIdentical(outcomes);
    outcomes.forEach(o -> assertEquals(STEPS, o.nextStep(), o.workerId()));

    assertEquals(List.of(8L, 16L, 24L), written.stream()
        .map(p -> Long.parseLong(p.substring(p.lastIndexOf('-') + 1))).toList(), "next steps of " + written);
    List<org.apache.hadoop.fs.Path> kept = CheckpointDirectory.list(conf, directory);
    assertEquals(written, kept.stream().map(Object::toString).toList());
    for (org.apache.hadoop.fs.Path p : kept) {
      Checkpoint c = Checkpoint.read(conf, p.toString());
      c.verify();
      assertEquals(c.meta().nextStep() * 2 * 4, c.meta().samplesSeen(), p.toString());
    }
    ModelOutput.Written model = outcomes.stream().filter(Worker.Outcome::leader).findFirst().orElseThrow()
        .output().orElseThrow();
    assertTrue(fs.getFileStatus(model.model()).getLen() > 0, "the model reads back: " + model.model());
    try (var in = fs.open(model.model())) {
      assertTrue(in.readAllBytes().length > 3_000_000 * 4, "the whole model is readable");
    }
  }

  /** Waits for the leader's writer to create its temporary checkpoint directory. */
  private static void awaitWriteInProgress(FileSystem fs, org.apache.hadoop.fs.Path directory) {
    Await.until("a checkpoint write to begin under " + directory, () -> fs.exists(directory)
        && Arrays.stream(fs.listStatus(directory)).anyMatch(s -> s.getPath().getName().endsWith(".tmp")), WAIT);
  }
}
