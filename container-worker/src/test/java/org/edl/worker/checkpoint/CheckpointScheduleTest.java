package org.edl.worker.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.junit.jupiter.api.Test;

/** Every N batches or T minutes, whichever first, on an injected clock. */
class CheckpointScheduleTest {
  private long now;

  /** Steps (next step) at which checkpoints are taken over {@code steps} batches of {@code batchNanos}. */
  private List<Long> run(CheckpointSchedule s, long from, long steps, long batchNanos) {
    List<Long> taken = new ArrayList<>();
    for (long next = from + 1; next <= from + steps; next++) {
      now += batchNanos;
      if (s.due(next)) {
        s.taken(next);
        taken.add(next);
      }
    }
    return taken;
  }

  @Test
  void everyNBatchesCountedFromTheFirstStepSeen() {
    CheckpointSchedule s = new CheckpointSchedule(5, Duration.ZERO, () -> now);
    assertEquals(List.of(5L, 10L, 15L), run(s, 0, 17, 1_000_000));
    // A worker that takes over the lead at step 40 counts from there.
    CheckpointSchedule successor = new CheckpointSchedule(5, Duration.ZERO, () -> now);
    assertEquals(List.of(45L, 50L), run(successor, 40, 12, 1_000_000));
  }

  @Test
  void everyTMinutesWhenBatchesAreSlow() {
    CheckpointSchedule s = new CheckpointSchedule(1000, Duration.ofMinutes(10), () -> now);
    // 2 minutes a batch: the time rule fires after 5 batches, well before 1000.
    assertEquals(List.of(6L, 11L, 16L), run(s, 0, 18, Duration.ofMinutes(2).toNanos()));
  }

  @Test
  void whicheverComesFirst() {
    CheckpointSchedule s = new CheckpointSchedule(4, Duration.ofMinutes(10), () -> now);
    List<Long> fast = run(s, 0, 8, Duration.ofSeconds(1).toNanos());
    assertEquals(List.of(4L, 8L), fast);
    // Then batches slow down to 6 minutes: two batches pass 10 minutes before four do.
    assertEquals(List.of(10L, 12L), run(s, 8, 4, Duration.ofMinutes(6).toNanos()));
  }

  @Test
  void zeroDisablesEitherRuleAndBothMeansNever() {
    CheckpointSchedule byTime = new CheckpointSchedule(0, Duration.ofMinutes(1), () -> now);
    // The clock starts at the first batch end seen: a minute later is the end of step 3 (next 4).
    assertEquals(List.of(4L), run(byTime, 0, 5, Duration.ofSeconds(25).toNanos()));
    CheckpointSchedule never = new CheckpointSchedule(0, Duration.ZERO, () -> now);
    assertFalse(never.enabled());
    assertEquals(List.of(), run(never, 0, 5000, Duration.ofMinutes(5).toNanos()));
  }

  @Test
  void theJobSpecCarriesTheScheduleWithThePapersDefaults() {
    JobSpec spec = JobSpec.builder().name("j").model("softmax").data("synthetic:samples=10").format("auto")
        .workers(1).minWorkers(1).maxWorkers(1).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(10).batchSize(4).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.1).hidden(8).seed(1)
        .backend("cpu").build();
    assertEquals(1000, spec.checkpoints().everyBatches());
    assertEquals(10, spec.checkpoints().everyMinutes());
    assertEquals(3, spec.checkpoints().kept());
    assertEquals("", spec.checkpoints().resumeFrom());

    JobSpec custom = spec.toBuilder().checkpoints(50, 0, 2).resumeFrom("hdfs:///ckpts").build();
    Properties p = custom.toProperties();
    assertEquals(custom, JobSpec.fromProperties(p));
    // A job file written before periodic checkpoints reads with the defaults.
    p.remove("edl.job.checkpoint-every-batches");
    p.remove("edl.job.checkpoint-every-minutes");
    p.remove("edl.job.checkpoints-kept");
    p.remove("edl.job.resume-from");
    assertEquals(spec, JobSpec.fromProperties(p));

    InvalidInputException e = assertThrows(InvalidInputException.class, () -> spec.toBuilder().checkpoints(-1, 10,
        3).build());
    assertTrue(e.getMessage().contains("checkpoint-every-batches"), e.getMessage());
    e = assertThrows(InvalidInputException.class, () -> spec.toBuilder().checkpoints(10, -2, 3).build());
    assertTrue(e.getMessage().contains("checkpoint-every-minutes"), e.getMessage());
    e = assertThrows(InvalidInputException.class, () -> spec.toBuilder().checkpoints(10, 10, 0).build());
    assertTrue(e.getMessage().contains("checkpoints-kept"), e.getMessage());
    p.setProperty("edl.job.checkpoints-kept", "many");
    e = assertThrows(InvalidInputException.class, () -> JobSpec.fromProperties(p));
    assertTrue(e.getMessage().contains("checkpoints-kept"), e.getMessage());
  }
}
