package org.edl.scheduler.core.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GracePeriodTest {
  private static final RunningContainer C1 =
      new RunningContainer("c1", "j", "bob", "n", 1, 0, 0, true);
  private static final RunningContainer C2 =
      new RunningContainer("c2", "j", "bob", "n", 1, 0, 1, true);

  private static PreemptionPlan plan(RunningContainer... victims) {
    return new PreemptionPlan(0, Map.of(), List.of(victims), List.of());
  }

  @Test
  void warnsOnceThenKillsWhatStillRunsAfterTheGracePeriod() {
    GracePeriod g = new GracePeriod(30_000);
    assertEquals(new GracePeriod.Actions(List.of("c1"), List.of()),
        g.next(plan(C1), Set.of("c1", "c2"), 1_000));
    // 29.999 s later: neither again nor yet.
    assertTrue(g.next(plan(C1), Set.of("c1", "c2"), 30_999).none());
    assertEquals(new GracePeriod.Actions(List.of(), List.of("c1")),
        g.next(plan(C1), Set.of("c1", "c2"), 31_000));
    // Killed once; while the kill is under way it is not repeated.
    assertTrue(g.next(plan(C1), Set.of("c1", "c2"), 40_000).none());
  }

  @Test
  void aContainerTheJobGaveUpInTimeIsNeverKilled() {
    GracePeriod g = new GracePeriod(30_000);
    g.next(plan(C1, C2), Set.of("c1", "c2"), 0);
    // The AM scaled c1 in gracefully: it is gone by the deadline; only c2 is killed.
    assertEquals(new GracePeriod.Actions(List.of(), List.of("c2")),
        g.next(plan(C1, C2), Set.of("c2"), 30_000));
  }

  @Test
  void aWarnedContainerThePlanNoLongerWantsIsLeftAlone() {
    GracePeriod g = new GracePeriod(30_000);
    g.next(plan(C1), Set.of("c1"), 0);
    assertTrue(g.next(plan(), Set.of("c1"), 60_000).none());
    assertEquals(0L, g.warnedAt("c1"));
  }

  @Test
  void negativeGraceIsRefusedNamingTheValue() {
    var e = assertThrows(IllegalArgumentException.class, () -> new GracePeriod(-5));
    assertTrue(e.getMessage().contains("-5"), e.getMessage());
  }
}
