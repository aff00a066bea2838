package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class JobSpecStragglerTest {
  private static JobSpec plain() {
    return JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(3).minWorkers(1)
        .maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu").build();
  }

  @Test
  void settingsSurviveTheJobFileAndAnOlderFileMeansOff() throws Exception {
    JobSpec spec = plain().toBuilder().stragglers(1.5, 7, true).build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    spec.write(out);
    JobSpec read = JobSpec.read(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(spec, read);
    assertTrue(read.detectsStragglers());

    Properties older = plain().toProperties();
    older.remove("edl.job.straggler-factor");
    older.remove("edl.job.straggler-batches");
    older.remove("edl.job.replace-stragglers");
    JobSpec fromOlder = JobSpec.fromProperties(older);
    assertFalse(fromOlder.detectsStragglers());
    assertFalse(fromOlder.stragglers().replace());
    assertEquals(7, spec.withWorkers(2).stragglers().batches(), "a relaunch keeps the settings");
  }

  @Test
  void badValuesNameTheField() {
    InvalidInputException factor = assertThrows(InvalidInputException.class,
        () -> plain().toBuilder().stragglers(1.0, 10, false).build());
    assertTrue(factor.getMessage().contains("straggler-factor=1.0"), factor.getMessage());
    InvalidInputException batches = assertThrows(InvalidInputException.class,
        () -> plain().toBuilder().stragglers(1.2, -1, false).build());
    assertTrue(batches.getMessage().contains("straggler-batches=-1"), batches.getMessage());
    assertFalse(plain().toBuilder().stragglers(0, 10, false).build().detectsStragglers());
    assertFalse(plain().toBuilder().stragglers(1.2, 0, false).build().detectsStragglers());
  }
}
