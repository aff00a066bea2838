package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class JobSpecRecoveryTest {
  private static JobSpec plain() {
    return JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(3).minWorkers(1)
        .maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu").build();
  }

  @Test
  void consistentIsTheDefaultAndSettingsSurviveTheJobFile() throws Exception {
    assertEquals(Recovery.DEFAULT, plain().recovery());
    JobSpec spec = plain().toBuilder().recovery(new Recovery(Recovery.Mode.APPROXIMATE, 4000, 5)).build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    spec.write(out);
    assertEquals(spec, JobSpec.read(new ByteArrayInputStream(out.toByteArray())));
    assertEquals(Recovery.Mode.APPROXIMATE, spec.withWorkers(2).recovery().mode(), "a relaunch keeps it");

    Properties older = plain().toProperties();
    older.remove("edl.job.recovery");
    older.remove("edl.job.sync-timeout-ms");
    older.remove("edl.job.max-worker-failures");
    assertEquals(Recovery.DEFAULT, JobSpec.fromProperties(older).recovery());
  }

  @Test
  void badValuesNameTheField() {
    Properties p = plain().toProperties();
    p.setProperty("edl.job.recovery", "optimistic");
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> JobSpec.fromProperties(p));
    assertTrue(e.getMessage().contains("recovery") && e.getMessage().contains("optimistic"), e.getMessage());
    InvalidInputException t = assertThrows(InvalidInputException.class,
        () -> plain().toBuilder().recovery(new Recovery(Recovery.Mode.CONSISTENT, -1, 3)).build());
    assertTrue(t.getMessage().contains("sync-timeout-ms") && t.getMessage().contains("-1"), t.getMessage());
  }

  @Test
  void theEnvironmentVariableAsksForApproximateRecovery() {
    assertTrue(Recovery.approximateRequested("1"));
    assertTrue(Recovery.approximateRequested(" true "));
    assertFalse(Recovery.approximateRequested("0"));
    assertFalse(Recovery.approximateRequested(null));
  }
}
