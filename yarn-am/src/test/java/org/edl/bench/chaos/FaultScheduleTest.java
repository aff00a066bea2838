package org.edl.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Property-style: every promise of a schedule, over many seeds and several budgets. */
class FaultScheduleTest {
  /** What {@code edl bench chaos} runs with by default. */
  private static final FaultSchedule.Limits BENCH = ChaosBench.Options.of(20, 1, ChaosBench.Options.DEFAULT_STEPS,
      ChaosBench.Options.DEFAULT_WORKERS, ChaosBench.Options.DEFAULT_MAX_WORKER_FAILURES,
      ChaosBench.Options.DEFAULT_CHECKPOINT_EVERY, ChaosBench.Options.DEFAULT_EXPECTED_SECONDS).limits();
  private static final double EPS = 1e-9;

  @Test
  void everyScheduleKeepsWithinTheLimits() {
    for (FaultSchedule.Limits limits : List.of(BENCH,
        new FaultSchedule.Limits(20, 70, 0, 10, 20, 3),
        new FaultSchedule.Limits(20, 70, 3, 10, 20, 3),
        new FaultSchedule.Limits(20, 70, 1, 10, 20, 5),
        new FaultSchedule.Limits(5, 300, 2, 4, 3, 10),
        new FaultSchedule.Limits(10, 10, 3, 10, 20, 4))) {
      for (long seed = 0; seed < 2_000; seed++) {
        FaultSchedule s = FaultSchedule.generate(seed, limits);
        String where = "seed " + seed + " " + limits + ": " + s.compact();
        assertFalse(s.faults().isEmpty(), where);
        assertTrue(s.faults().size() <= limits.maxFaults(), where);
        assertTrue(s.workerFailures(limits.detectSeconds()) <= limits.maxWorkerFailures(), where);
        assertTrue(s.faults().stream().filter(f -> f.kind() == Fault.Kind.KILL_AM).count() <= 1, where);
        Fault previous = null;
        for (Fault f : s.faults()) {
          assertTrue(f.atSeconds() >= limits.windowStartSeconds() - EPS, where);
          assertTrue(f.atSeconds() <= limits.windowEndSeconds() + EPS, where);
          if (f.kind().isPause()) {
            boolean isShort = f.pauseSeconds() <= limits.detectSeconds() / 2;
            boolean isLong = f.pauseSeconds() >= 2 * limits.detectSeconds();
            assertTrue(f.pauseSeconds() >= 1 && (isShort || isLong), "pause near the threshold: " + where);
          }
          if (previous != null) {
            assertTrue(f.atSeconds() >= previous.atSeconds() + previous.pauseSeconds() + limits.gapSeconds() - EPS,
                "too close: " + where);
          }
          previous = f;
        }
      }
    }
  }

  @Test
  void theSameSeedGivesTheSameSchedule() {
    for (long seed = 0; seed < 100; seed++) {
      assertEquals(FaultSchedule.generate(seed, BENCH), FaultSchedule.generate(seed, BENCH));
    }
    long distinct = java.util.stream.LongStream.range(0, 100)
        .mapToObj(seed -> FaultSchedule.generate(seed, BENCH).compact()).distinct().count();
    assertTrue(distinct > 90, "seeds give different schedules: " + distinct + " of 100");
  }

  @Test
  void twentySeedsCoverEveryKind() {
    Set<Fault.Kind> seen = EnumSet.noneOf(Fault.Kind.class);
    boolean longPause = false;
    boolean shortPause = false;
    for (long seed = 1; seed <= 20; seed++) {
      for (Fault f : FaultSchedule.generate(seed, BENCH).faults()) {
        seen.add(f.kind());
        longPause |= f.kind().isPause() && f.workerFailures(BENCH.detectSeconds()) == 1;
        shortPause |= f.kind().isPause() && f.workerFailures(BENCH.detectSeconds()) == 0;
      }
    }
    assertEquals(EnumSet.allOf(Fault.Kind.class), seen);
    assertTrue(longPause && shortPause, "both long and short pauses");
  }

  @Test
  void aSpentBudgetLeavesOnlyShortPausesAndTheAm() {
    FaultSchedule.Limits none = new FaultSchedule.Limits(20, 70, 0, 10, 20, 3);
    for (long seed = 0; seed < 500; seed++) {
      for (Fault f : FaultSchedule.generate(seed, none).faults()) {
        assertTrue(f.kind() == Fault.Kind.KILL_AM || f.kind().isPause() && f.pauseSeconds() <= 5, f.compact());
      }
    }
  }

  @Test
  void theCompactFormNamesKindTimeAndPause() {
    FaultSchedule s = new FaultSchedule(7, List.of(new Fault(12.3, Fault.Kind.KILL_WORKER, 0),
        new Fault(30.1, Fault.Kind.PAUSE_LEADER, 25), new Fault(55, Fault.Kind.KILL_AM, 0)));
    assertEquals("kill-worker@12.3;pause-leader@30.1/25s;kill-am@55.0", s.compact());
    assertEquals(2, s.workerFailures(10));
    assertEquals(1, s.workerFailures(30), "a 25 s pause is no failure when detection takes 30 s");
    assertEquals("", new FaultSchedule(1, List.of()).compact());
  }

  @Test
  void badFaultsAndLimitsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Fault(1, Fault.Kind.PAUSE_WORKER, 0));
    assertThrows(IllegalArgumentException.class, () -> new Fault(1, Fault.Kind.KILL_WORKER, 3));
    assertThrows(IllegalArgumentException.class, () -> new Fault(-1, Fault.Kind.KILL_AM, 0));
    assertThrows(IllegalArgumentException.class, () -> new FaultSchedule.Limits(30, 20, 3, 10, 20, 3));
    assertThrows(IllegalArgumentException.class, () -> new FaultSchedule.Limits(20, 70, -1, 10, 20, 3));
    assertThrows(IllegalArgumentException.class, () -> new FaultSchedule.Limits(20, 70, 3, 1, 20, 3));
    assertThrows(IllegalArgumentException.class, () -> new FaultSchedule.Limits(20, 70, 3, 10, 20, 0));
  }
}
