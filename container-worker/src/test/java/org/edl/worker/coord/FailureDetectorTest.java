package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FailureDetectorTest {
  private static final long S = 1_000_000_000L;

  @Test
  void aConfiguredTimeoutIsUsedAsItIs() {
    FailureDetector d = new FailureDetector(Duration.ofMillis(1500));
    d.batchCompleted(100);
    assertEquals(1500 * 1_000_000L, d.timeoutNanos(false));
    assertEquals(3 * 1500 * 1_000_000L, d.timeoutNanos(true), "three times as long where grace is due");
  }

  /** Floor 10 s, 20 x median: 10 ms batches keep the floor, 2 s batches give 40 s. */
  @Test
  void theDerivedTimeoutIsTheFloorOrTwentyMedianBatchesWhicheverIsLonger() {
    FailureDetector d = new FailureDetector(Duration.ZERO);
    assertEquals(10 * S, d.timeoutNanos(false), "no batch yet: the floor");
    for (int i = 0; i < 5; i++) {
      d.batchCompleted(0.010);
    }
    assertEquals(10 * S, d.timeoutNanos(false));
    for (int i = 0; i < 6; i++) {
      d.batchCompleted(2.0);
    }
    assertEquals(40 * S, d.timeoutNanos(false), "median of five 0.01 s and six 2 s batches is 2 s");
  }

  /** Only the last WINDOW batches count: one slow spell long ago does not stretch it for ever. */
  @Test
  void theMedianForgetsOldBatches() {
    FailureDetector d = new FailureDetector(Duration.ZERO, Duration.ofSeconds(1), 10, 3);
    for (int i = 0; i < FailureDetector.WINDOW; i++) {
      d.batchCompleted(5.0);
    }
    assertEquals(50 * S, d.timeoutNanos(false));
    for (int i = 0; i < FailureDetector.WINDOW; i++) {
      d.batchCompleted(0.01);
    }
    assertEquals(S, d.timeoutNanos(false));
  }

  @Test
  void aMemberThatHasNotReportedWithinTheTimeoutAfterTheFirstMissedTheSync() {
    FailureDetector d = new FailureDetector(Duration.ofSeconds(2));
    List<String> members = List.of("a", "b", "c");
    long first = 100 * S;
    assertEquals(Set.of(), d.missedSync(members, Set.of("a"), first, false, first + 2 * S), "not yet: exactly 2 s");
    assertEquals(Set.of("b", "c"), d.missedSync(members, Set.of("a"), first, false, first + 2 * S + 1));
    assertEquals(Set.of(), d.missedSync(members, Set.of("a"), first, true, first + 5 * S),
        "a step with grace waits three times as long");
    assertEquals(Set.of("c"), d.missedSync(members, Set.of("a", "b"), first, true, first + 6 * S + 1));
  }

  @Test
  void aMemberSilentThroughARecoveryIsFailed() {
    FailureDetector d = new FailureDetector(Duration.ofSeconds(2));
    List<String> members = List.of("a", "b", "c");
    assertEquals(Set.of(), d.silentInRecovery(members, Set.of("a"), 0, 2 * S));
    assertEquals(Set.of("c"), d.silentInRecovery(members, Set.of("a", "b"), 0, 2 * S + 1));
  }

  @Test
  void badSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new FailureDetector(Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> new FailureDetector(Duration.ZERO, Duration.ofSeconds(1), 0, 3));
    assertTrue(new FailureDetector(Duration.ZERO, Duration.ZERO, 1, 1).timeoutNanos(true) >= 0);
  }
}
