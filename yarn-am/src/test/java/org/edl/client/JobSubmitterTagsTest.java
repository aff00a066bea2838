package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.junit.jupiter.api.Test;

/** What a submission tells the scheduler plugin besides the job itself. */
class JobSubmitterTagsTest {
  @Test
  void theTagsAreMinWorkersWorkersAndMaxWorkersTimesGpusPerWorker() {
    JobSpec spec = JobSpec.builder().name("tags").model("mlp")
        .data("synthetic:samples=64,features=4,classes=2,seed=1").format("auto").workers(6).minWorkers(2)
        .maxWorkers(8).gpusPerWorker(4).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(8)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(8).seed(1).backend("cpu").build();
    assertEquals(Set.of("edl-min-gpus=8", "edl-gpus=24", "edl-max-gpus=32"), JobSubmitter.applicationTags(spec));
  }

  @Test
  void anEmulatedJobAlsoCarriesItsProfiledSpeedupsAsFarAsTheTagAllows() {
    org.edl.job.JobSpecBuilder b = JobSpec.builder().name("tags").model("imagenet")
        .data("synthetic:samples=64,features=4,classes=2,seed=1").format("auto").workers(4).minWorkers(2)
        .maxWorkers(8).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(800)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(8).seed(1).backend("emulated");
    String tag = JobSubmitter.applicationTags(b.build()).stream()
        .filter(t -> t.startsWith(JobSubmitter.SPEEDUP_TAG)).findFirst().orElseThrow();
    // ResNet-50 at a global batch of 800, by its profile (bench cluster's curve): 217 samples/s
    // on one GPU, 796 on four, 1195 on eight.
    String[] values = tag.substring((JobSubmitter.SPEEDUP_TAG + "1:").length()).split("/");
    assertEquals(8, values.length, tag);
    assertEquals("1.00", values[0]);
    assertEquals(796.0 / 217, Double.parseDouble(values[3]), 0.02, tag);
    assertEquals(1195.0 / 217, Double.parseDouble(values[7]), 0.02, tag);

    // Sixty-four workers do not fit in YARN's 100 characters: the curve stops where they end.
    String wide = JobSubmitter.applicationTags(b.maxWorkers(64).build()).stream()
        .filter(t -> t.startsWith(JobSubmitter.SPEEDUP_TAG)).findFirst().orElseThrow();
    assertTrue(wide.length() <= 100 && wide.length() > 90, wide);
  }

  @Test
  void aNegativePriorityIsRefusedNamingTheField() {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> new JobSubmitter(new org.apache.hadoop.conf.Configuration(false), null).withPriority(-1));
    assertEquals(true, e.getMessage().contains("priority"), e.getMessage());
    new JobSubmitter(new org.apache.hadoop.conf.Configuration(false), null).withPriority(5);
  }
}
