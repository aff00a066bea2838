package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.edl.job.JobSpec;
import org.edl.job.Script;
import org.edl.testing.PythonTorch;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.script.ScriptModel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The scripts in {@code docs/examples}, unchanged, as script jobs with the real protocol. */
class ScriptExamplesTest {
  private static final Path EXAMPLES = Path.of("..", "docs", "examples");
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  /**
   * {@code image_files.py}: image files read through a Dataset by a DataLoader with two worker
   * processes, two members and a third joining; each learns the image set, and every sample
   * position is trained once.
   */
  @Test
  void imageFilesTrainsThroughADataLoaderAcrossAScaleOut() throws Exception {
    List<String> ids = twoThenThree("image_files.py", "application_10_1", 120, 32, 40,
        List.of("--images", "512", "--loader-workers", "2"));
    for (String id : List.of(ids.get(0), ids.get(2))) {
      double accuracy = Double.parseDouble(Files.readString(out.resolve(id).resolve("accuracy.txt")).trim());
      assertTrue(accuracy > 0.9, id + " learned the image set: accuracy over its last steps " + accuracy);
    }
  }

  /**
   * {@code resnet18.py}: torchvision's ResNet-18 with a cosine schedule, a GradScaler (disabled on
   * the CPU) and a DataLoader, unchanged, for a few steps of small batches: two members, a third
   * joining; every position once and every member's held-out accuracy written. (Its accuracy
   * against torchrun needs GPUs and thousands of steps.)
   */
  @Test
  void resnet18RunsUnchangedAcrossAScaleOut() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder(ScriptJobTest.PYTHON, "-c", "import torchvision")
        .start().waitFor() == 0, "skipped: no torchvision (Debian: apt-get install python3-torchvision)");
    int steps = 12;
    List<String> ids = twoThenThree("resnet18.py", "application_10_2", steps, 12, 4,
        List.of("--images", "300", "--loader-workers", "1", "--schedule-steps", Integer.toString(steps)));
    for (String id : ids) {
      double accuracy = Double.parseDouble(Files.readString(out.resolve(id).resolve("accuracy.txt")).trim());
      assertTrue(accuracy >= 0 && accuracy <= 1, id + ": " + accuracy);
    }
  }

  /**
   * {@code example} unchanged as a script job of {@code steps} global batches of {@code batch}:
   * two members, a third joining once step {@code joinAfter - 1} is trained; all three finish at
   * three, every position trained once. Returns the members' ids in start order.
   */
  private List<String> twoThenThree(String example, String appId, int steps, int batch, int joinAfter,
      List<String> args) throws Exception {
    String text = Files.readString(EXAMPLES.resolve(example));
    JobSpec spec = JobSpec.builder().name("example").script(new Script("train.py", List.of(), ScriptJobTest.PYTHON))
        .workers(2).minWorkers(1).maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(steps)
        .batchSize(batch).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(3).backend("cpu")
        .output(out.resolve(appId).toUri().toString()).build();
    Map<String, ScriptModel> scripts = new ConcurrentHashMap<>();
    List<String> ids = List.of(ElasticJob.id(appId, 1), ElasticJob.id(appId, 2), ElasticJob.id(appId, 3));
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5))) {
      job.holdBefore(joinAfter);
      for (String id : ids.subList(0, 2)) {
        job.start(id, ScriptJobs.script(out, scripts, id, text, args));
      }
      job.awaitTrained(ids.get(0), joinAfter - 1);
      job.start(ids.get(2), ScriptJobs.script(out, scripts, ids.get(2), text, args));
      job.awaitReady(ids.get(2));
      job.release();
      for (String id : ids) {
        Worker.Outcome o = job.outcome(id);
        assertEquals(Worker.Ending.FINISHED, o.ending(), id);
        assertEquals(3, o.workers(), id);
      }
      ElasticScalingTest.assertEveryPositionOnce(job, (long) steps * batch);
    }
    return ids;
  }
}
