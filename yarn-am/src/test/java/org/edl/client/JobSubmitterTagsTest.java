package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.thrift.BatchRule;
import org.junit.jupiter.api.Test;

/** What a submission tells the scheduler plugin besides the job itself. */
class JobSubmitterTagsTest {
  @Test
  void theTagsAreMinWorkersAndWorkersTimesGpusPerWorker() {
    JobSpec spec = JobSpec.builder().name("tags").model("mlp")
        .data("synthetic:samples=64,features=4,classes=2,seed=1").format("auto").workers(6).minWorkers(2)
        .maxWorkers(8).gpusPerWorker(4).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(8)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(8).seed(1).backend("cpu").build();
    assertEquals(Set.of("edl-min-gpus=8", "edl-gpus=24"), JobSubmitter.applicationTags(spec));
  }

  @Test
  void aNegativePriorityIsRefusedNamingTheField() {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> new JobSubmitter(new org.apache.hadoop.conf.Configuration(false), null).withPriority(-1));
    assertEquals(true, e.getMessage().contains("priority"), e.getMessage());
    new JobSubmitter(new org.apache.hadoop.conf.Configuration(false), null).withPriority(5);
  }
}
