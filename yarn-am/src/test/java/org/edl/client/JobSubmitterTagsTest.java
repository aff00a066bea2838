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
  void theMinGpusTagIsMinWorkersTimesGpusPerWorker() {
    JobSpec spec = new JobSpec("tags", "mlp", "synthetic:samples=64,features=4,classes=2,seed=1", "auto",
        6, 2, 8, 4, 512, 1, 10, 8, BatchRule.FIXED_GLOBAL, 0.05, 8, 1, "cpu", "", "").validate();
    assertEquals(Set.of("edl-min-gpus=8"), JobSubmitter.applicationTags(spec));
  }

  @Test
  void aNegativePriorityIsRefusedNamingTheField() {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> new JobSubmitter(new org.apache.hadoop.conf.Configuration(false), null).withPriority(-1));
    assertEquals(true, e.getMessage().contains("priority"), e.getMessage());
    new JobSubmitter(new org.apache.hadoop.conf.Configuration(false), null).withPriority(5);
  }
}
