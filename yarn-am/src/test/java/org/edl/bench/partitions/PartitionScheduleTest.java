package org.edl.bench.partitions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Seeds take the kinds in turn, healed below their timeout on one round and above it on the next. */
class PartitionScheduleTest {
  private final PartitionSchedule.Limits limits = new PartitionSchedule.Limits(12, 36, 4, 10, 20);

  @Test
  void everySixSeedsRunEveryKindOnce() {
    for (long first = 1; first <= 25; first += 6) {
      Set<Partition.Kind> kinds = EnumSet.noneOf(Partition.Kind.class);
      for (long seed = first; seed < first + 6; seed++) {
        kinds.add(PartitionSchedule.forSeed(seed, limits).kind());
      }
      assertEquals(EnumSet.allOf(Partition.Kind.class), kinds, "seeds " + first + "..");
    }
  }

  @Test
  void aCutHealsBelowItsTimeoutInOneRoundAndAboveItInTheNext() {
    Partition below = PartitionSchedule.forSeed(1, limits);
    Partition above = PartitionSchedule.forSeed(7, limits);
    assertEquals(Partition.Kind.LEADER_FROM_FOLLOWERS, below.kind());
    assertEquals(below.kind(), above.kind());
    assertEquals(4, below.timeoutSeconds());
    assertEquals(1.0, below.healAfterSeconds());
    assertFalse(below.longerThanTimeout());
    assertEquals(6.0, above.healAfterSeconds());
    assertTrue(above.longerThanTimeout());
    Partition session = PartitionSchedule.forSeed(8, limits);
    assertEquals(Partition.Kind.LEADER_FROM_ZOOKEEPER, session.kind());
    assertEquals(15.0, session.healAfterSeconds(), "above the 10 s session timeout");
  }

  @Test
  void theQuorumIsLostForTwentySecondsWhateverTheRound() {
    for (long seed : new long[] {5, 11, 17}) {
      Partition p = PartitionSchedule.forSeed(seed, limits);
      assertEquals(Partition.Kind.ZOOKEEPER_QUORUM, p.kind());
      assertEquals(20.0, p.healAfterSeconds());
    }
  }

  @Test
  void theMomentFallsInTheWindowAndIsTheSameForTheSameSeed() {
    for (long seed = 1; seed <= 60; seed++) {
      Partition p = PartitionSchedule.forSeed(seed, limits);
      assertTrue(p.atSeconds() >= 12 && p.atSeconds() <= 36, p.compact());
      assertEquals(p, PartitionSchedule.forSeed(seed, limits));
    }
    assertEquals("leader-followers@" + String.format(java.util.Locale.ROOT, "%.1f",
        PartitionSchedule.forSeed(1, limits).atSeconds()) + "/1.0s", PartitionSchedule.forSeed(1, limits).compact());
  }

  @Test
  void onlyACutPastItsTimeoutCostsWorkersAndOnlyThoseItsRuleNames() {
    assertEquals(0, PartitionPromise.workerFailures(PartitionSchedule.forSeed(1, limits), 3));
    assertEquals(2, PartitionPromise.workerFailures(PartitionSchedule.forSeed(7, limits), 3),
        "the leader declares each follower failed");
    assertEquals(1, PartitionPromise.workerFailures(PartitionSchedule.forSeed(8, limits), 3),
        "the leader's session ends");
    assertEquals(1, PartitionPromise.workerFailures(PartitionSchedule.forSeed(9, limits), 3),
        "one end of the broken ring link");
    for (long seed : new long[] {10, 11, 12}) {
      Partition p = PartitionSchedule.forSeed(seed, limits);
      assertEquals(0, PartitionPromise.workerFailures(p, 3), p.compact());
    }
  }
}
