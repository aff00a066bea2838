package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.edl.bench.Timelines.Row;
import org.junit.jupiter.api.Test;

class RecoveryAnalysisTest {
  /** Batches of 100 ms back to back from {@code t0}, steps {@code from..to}, on {@code workers} workers. */
  private static List<Row> batches(long from, long to, long t0, int workers) {
    List<Row> rows = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      for (long s = from; s <= to; s++) {
        long start = t0 + (s - from) * 100;
        rows.add(new Row("batch", s, start, start + 100, ""));
      }
    }
    return rows;
  }

  @Test
  void consistentRecoveryRedoesTheStepsSinceItsCheckpoint() {
    // Steps 0..59 end at 100..6000; the kill asked for at 5950 lands during step 60; back from
    // the checkpoint at step 40, whose batch ends at 8100: training resumed at 8000, 2 s after
    // the last step completed before the death.
    List<Row> rows = new ArrayList<>(batches(0, 59, 0, 4));
    rows.addAll(batches(40, 70, 8000, 3));
    RecoveryAnalysis.Cost c = RecoveryAnalysis.of(rows, 5950, -1, 4, 1);
    assertEquals(3, c.workersAfter());
    assertEquals(2.0, c.recoverySeconds(), 1e-9);
    assertEquals(59, c.lastStepBefore());
    assertEquals(40, c.firstStepAfter());
    assertEquals(20, c.stepsRedone());
    // 3 survivors idle 2 s, and 20 steps of 0.1 s redone on 3 workers.
    assertEquals(3 * 2.0 + 3 * 20 * 0.1, c.lostGpuSeconds(), 1e-9);
  }

  @Test
  void approximateRecoveryRedoesNothingCompleted() {
    List<Row> rows = new ArrayList<>(batches(0, 59, 0, 4));
    // The interrupted step 60 completes after recovery; it keeps its first start in the timeline.
    for (int w = 0; w < 3; w++) {
      rows.add(new Row("batch", 60, 6000, 6600, ""));
    }
    rows.addAll(batches(61, 70, 6600, 3));
    RecoveryAnalysis.Cost c = RecoveryAnalysis.of(rows, 5950, -1, 4, 1);
    assertEquals(0, c.stepsRedone());
    assertEquals(59, c.lastStepBefore());
    assertEquals(0.5, c.recoverySeconds(), 1e-9);
    assertEquals(3 * 0.5, c.lostGpuSeconds(), 1e-9);
  }

  @Test
  void withoutTimelinesBeforeTheDeathTheFallbackStepCounts() {
    RecoveryAnalysis.Cost c = RecoveryAnalysis.of(batches(40, 50, 20_000, 4), 6050, 59, 4, 1);
    assertEquals(59, c.lastStepBefore());
    assertEquals(20, c.stepsRedone());
    assertEquals(4, c.workersAfter());
    assertEquals(3 * 13.95 + 4 * 20 * 0.1, c.lostGpuSeconds(), 1e-9);
    assertEquals(13.95, c.recoverySeconds(), 1e-9);
  }

  @Test
  void stepsThatEndAfterTheKillRequestButBeforeTheSilenceCountAsBeforeTheDeath() {
    // The kill is asked for at 3050 but lands at the end of step 59 (6000).
    List<Row> rows = new ArrayList<>(batches(0, 59, 0, 4));
    rows.addAll(batches(40, 70, 8000, 3));
    RecoveryAnalysis.Cost c = RecoveryAnalysis.of(rows, 3050, -1, 4, 1);
    assertEquals(59, c.lastStepBefore());
    assertEquals(40, c.firstStepAfter());
    assertEquals(2.0, c.recoverySeconds(), 1e-9);
  }

  @Test
  void noStepAfterTheDeathIsAnError() {
    assertThrows(IllegalStateException.class, () -> RecoveryAnalysis.of(batches(0, 9, 0, 2), 5000, -1, 2, 1));
  }
}
