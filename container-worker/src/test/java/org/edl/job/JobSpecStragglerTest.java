package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Properties;
import org.edl.thrift.BatchRule;
import org.junit.jupiter.api.Test;

class JobSpecStragglerTest {
  private static JobSpec plain() {
    return new JobSpec("t", "softmax", "synthetic:samples=64,features=4,classes=3,seed=1", "auto",
        3, 1, 3, 0, 512, 1, 10, 12, BatchRule.FIXED_GLOBAL, 0.1, 8, 7, "cpu", "", "").validate();
  }

  @Test
  void settingsSurviveTheJobFileAndAnOlderFileMeansOff() throws Exception {
    JobSpec spec = plain().withStragglers(1.5, 7, true);
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
    assertFalse(fromOlder.replaceStragglers());
    assertEquals(7, spec.withWorkers(2).stragglerBatches(), "a relaunch keeps the settings");
  }

  @Test
  void badValuesNameTheField() {
    InvalidInputException factor = assertThrows(InvalidInputException.class,
        () -> plain().withStragglers(1.0, 10, false));
    assertTrue(factor.getMessage().contains("straggler-factor=1.0"), factor.getMessage());
    InvalidInputException batches = assertThrows(InvalidInputException.class,
        () -> plain().withStragglers(1.2, -1, false));
    assertTrue(batches.getMessage().contains("straggler-batches=-1"), batches.getMessage());
    assertFalse(plain().withStragglers(0, 10, false).detectsStragglers());
    assertFalse(plain().withStragglers(1.2, 0, false).detectsStragglers());
  }
}
