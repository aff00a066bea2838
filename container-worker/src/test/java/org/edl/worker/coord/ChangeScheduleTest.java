package org.edl.worker.coord;

import static org.edl.worker.coord.CoordTesting.member;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The ring and its changes as bookkeeping alone: no clock, no phase, no failure detection. */
class ChangeScheduleTest {
  /** Three workers formed into v1 (max 4, last step 99), led by c1. */
  private static ChangeSchedule formed() throws Refused {
    ChangeSchedule c = new ChangeSchedule("c1", 3, 4, 99);
    for (int i : new int[] {3, 1, 2}) {
      c.register(member(i), 0);
    }
    return c;
  }

  @Test
  void theFirstRingFormsOnceItsSizeRegisteredOrderedById() throws Exception {
    ChangeSchedule c = new ChangeSchedule("c1", 3, 4, 99);
    assertFalse(c.register(member(3), 0).pending());
    c.register(member(1), 0);
    assertFalse(c.formed());
    assertEquals(MemberRing.NONE, c.ring());
    ChangeSchedule.Registered r = c.register(member(2), 0);
    assertTrue(c.formed());
    assertEquals(new MemberRing(1, List.of(member(1), member(2), member(3))), r.ring());
    assertFalse(r.pending());
  }

  @Test
  void aNewcomerWaitsForItsSwitchWhichIsScheduledOnceItIsReady() throws Exception {
    ChangeSchedule c = formed();
    ChangeSchedule.Registered r = c.register(member(4), 0);
    assertTrue(r.pending());
    assertEquals(List.of("c1", "c2", "c3", "c4"), r.ring().ids());
    assertEquals(2, c.latest().version());
    assertFalse(c.schedulable(), "c4 is not ready");
    c.ready("c4");
    assertTrue(c.schedulable());
    SwitchPlan p = c.schedule(10, 5, 3);
    assertEquals(15, p.atStep());
    assertEquals("c1", p.broadcasterId());
    assertEquals(3, p.leaderEpoch());
    assertEquals(Optional.of(p), c.orderFor("c4"));
    assertEquals(c.ring(), c.membersFor(15), "the switch step still runs on v1");
    assertEquals(p.next(), c.membersFor(16));
    assertTrue(c.applyIfDue(14).isEmpty());
    assertEquals(Optional.of(p), c.applyIfDue(15));
    assertEquals(p.next(), c.ring());
    assertFalse(c.changePending());
    assertEquals(Set.of("c4"), c.untrainedJoiners());
    c.reported("c4");
    assertEquals(Set.of(), c.untrainedJoiners());
  }

  @Test
  void aSwitchIsNeverScheduledPastTheLastStepNorBeforeTheNextOne() throws Exception {
    ChangeSchedule c = formed();
    c.leave("c3", 0);
    assertEquals(99, c.schedule(97, 5, 1).atStep());
    ChangeSchedule d = formed();
    d.leave("c3", 0);
    assertEquals(99, d.schedule(98, 5, 1).atStep(), "the step after t is the last step");
  }

  @Test
  void maxWorkersCountsTheUnavailableAsGone() throws Exception {
    ChangeSchedule c = formed();
    c.register(member(4), 0);
    assertThrows(Refused.class, () -> c.register(member(5), 0), "4 workers after the change: max");
    assertTrue(c.register(member(5), 1).pending(), "a member declared failed leaves room");
  }

  @Test
  void aLeaveAskedWhileASwitchIsScheduledIsQueuedForTheNextVersion() throws Exception {
    ChangeSchedule c = formed();
    c.register(member(4), 0);
    c.ready("c4");
    c.schedule(0, 5, 1);
    SwitchPlan queued = c.leave("c2", 0);
    assertEquals(-1, queued.atStep());
    assertEquals(3, queued.version(), "after the scheduled v2");
    c.applyIfDue(5);
    assertEquals(List.of("c1", "c3", "c4"), c.latest().ids());
    assertTrue(c.schedulable());
  }

  @Test
  void theLastWorkerCannotLeave() throws Exception {
    ChangeSchedule c = formed();
    c.leave("c2", 0);
    c.leave("c3", 0);
    assertThrows(Refused.class, () -> c.leave("c1", 0));
    assertThrows(Refused.class, () -> c.leave("c9", 0), "not a member");
  }

  @Test
  void aNewcomerGoneBeforeItsSwitchIsScheduledIsDropped() throws Exception {
    ChangeSchedule c = formed();
    c.register(member(4), 0);
    assertTrue(c.dropJoiner("c4"));
    assertFalse(c.changePending());
    assertFalse(c.dropJoiner("c4"));
    assertTrue(c.registration("c4").isEmpty());

    ChangeSchedule d = formed();
    d.register(member(4), 0);
    d.ready("c4");
    d.schedule(0, 5, 1);
    assertFalse(d.dropJoiner("c4"), "its switch is scheduled: it is recovered from, not dropped");
  }

  @Test
  void aRecoveryUnschedulesTheChangeAndDropsTheFailed() throws Exception {
    ChangeSchedule c = formed();
    c.register(member(4), 0);
    c.leave("c3", 0);
    c.ready("c4");
    c.schedule(0, 5, 1);
    c.recovered(new MemberRing(2, List.of(member(1), member(2))), Set.of("c3"));
    assertTrue(c.scheduled().isEmpty(), "a switch scheduled on the old ring waits for the next one");
    assertEquals(List.of("c1", "c2", "c4"), c.latest().ids());
    assertEquals(3, c.latest().version());
    assertTrue(c.registration("c3").isEmpty());
  }

  @Test
  void aSuccessorInheritsTheRingAndTheChange() throws Exception {
    MemberRing ring = new MemberRing(2, List.of(member(2), member(3)));
    SwitchPlan waiting = new SwitchPlan(-1, new MemberRing(3, List.of(member(2), member(4))), List.of("c4"),
        List.of("c3"), null, false, 0, 1);
    ChangeSchedule c = ChangeSchedule.inherited("c2", 4, 99, ring, Optional.of(waiting), Map.of(), 2);
    assertEquals(ring, c.ring());
    assertEquals(List.of("c2", "c4"), c.latest().ids());
    assertFalse(c.schedulable(), "c4 reports ready to the successor again");
    c.ready("c4");
    assertTrue(c.schedulable());
  }
}
