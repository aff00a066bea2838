package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;

/**
 * Migration as one switch ({@link CoordinatorState#replace}), report by report with a fixed
 * clock: 10 ms batches and T_a = 50 ms, so a switch is scheduled 5 steps after the highest step
 * reported.
 */
class ReplacementTest {
  private static final Duration T_A = Duration.ofMillis(50);
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static JobSpec spec(int workers, int max) {
    return CoordTesting.spec(workers, 1, max, 1000);
  }

  private CoordinatorState running(int workers, int max, String leaderId) throws Refused {
    CoordinatorState s = CoordTesting.leading(spec(workers, max), now::get, T_A, leaderId);
    for (int i = 1; i <= workers; i++) {
      s.register(worker(i));
    }
    return s;
  }

  private static Member worker(int i) {
    return CoordTesting.member(i);
  }

  private static SyncAnswer step(CoordinatorState s, long step, String... ids) throws Refused {
    SyncAnswer last = null;
    for (String id : ids) {
      last = s.sync(CoordTesting.report(id, step, 1.0, 0.010, 4, step * 12));
    }
    return last;
  }

  /**
   * 3 workers at max-workers=3; c3 is replaced by one newcomer. The newcomer is admitted (c3
   * counts as gone), reports ready at once as a real one does, and that schedules one switch
   * that both adds c4 and removes c3; a second newcomer is still refused at max.
   */
  @Test
  void theLeaversGoAtTheSwitchThatAdmitsTheAwaitedNewcomers() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchPlan announced = s.replace(List.of("c3"), 1);
    assertEquals(-1, announced.atStep());
    assertEquals(1, announced.awaitedJoiners());
    assertEquals(List.of("c3"), announced.leavers());

    assertTrue(s.register(worker(4)).pending());
    assertEquals("workerId", assertThrows(Refused.class, () -> s.register(worker(5))).field(),
        "only the awaited newcomer is admitted beyond the ring's size");
    SwitchPlan order = s.ready("c4").orElseThrow();
    assertEquals(2, order.version(), "one version step for both");
    assertEquals(5, order.atStep());
    assertEquals(List.of("c4"), order.joiners());
    assertEquals(List.of("c3"), order.leavers());
    assertEquals(List.of("c1", "c2", "c4"), order.next().ids());
    assertEquals("c1", order.broadcasterId());
    assertFalse(order.leaderLeaves());

    for (long t = 1; t <= order.atStep(); t++) {
      SyncAnswer r = step(s, t, "c1", "c2", "c3");
      assertEquals(2, r.order().orElseThrow().version(), "the same order to every member");
    }
    assertEquals(List.of("c1", "c2", "c4"), s.ring().ids());
    step(s, order.atStep() + 1, "c1", "c2", "c4");
    assertTrue(s.isComplete(order.atStep() + 1));
  }

  /** Until the newcomers come, the leavers are ordinary members: nothing waits for them. */
  @Test
  void leaversTrainOnWhileTheNewcomersAreOnTheirWay() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    s.replace(List.of("c2", "c3"), 2);
    for (long t = 0; t < 20; t++) {
      SyncAnswer r = step(s, t, "c1", "c2", "c3");
      assertTrue(r.order().isEmpty());
    }
    assertEquals(20, s.position().step());
    s.register(worker(4));
    assertTrue(s.ready("c4").isEmpty(), "one of two newcomers: not yet");
    step(s, 20, "c1", "c2", "c3");
    s.register(worker(5));
    SwitchPlan order = s.ready("c5").orElseThrow();
    assertEquals(List.of("c4", "c5"), order.joiners());
    assertEquals(List.of("c2", "c3"), order.leavers());
    assertEquals(List.of("c1", "c4", "c5"), order.next().ids());
    assertEquals(25, order.atStep());
  }

  /** The count is of newcomers still to come: one already waiting does not stand in for them. */
  @Test
  void aNewcomerThatRegisteredBeforeTheReplacementDoesNotCount() throws Exception {
    CoordinatorState s = running(2, 4, "c1");
    step(s, 0, "c1", "c2");
    s.register(worker(3));
    assertEquals(2, s.replace(List.of("c2"), 1).awaitedJoiners());
    assertTrue(s.ready("c3").isEmpty());
    s.register(worker(4));
    SwitchPlan order = s.ready("c4").orElseThrow();
    assertEquals(List.of("c3", "c4"), order.joiners());
    assertEquals(List.of("c2"), order.leavers());
  }

  @Test
  void aRetriedReplacementIsHarmlessAndOthersAreRefusedNamingTheField() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    s.replace(List.of("c3"), 1);
    assertEquals(-1, s.replace(List.of("c3"), 1).atStep(), "a retried call");
    Refused twice = assertThrows(Refused.class, () -> s.replace(List.of("c2"), 1));
    assertEquals("leavers", twice.field());
    assertEquals("c2", twice.value());

    CoordinatorState t = running(3, 3, "c1");
    step(t, 0, "c1", "c2", "c3");
    assertEquals("leavers", assertThrows(Refused.class, () -> t.replace(List.of(), 1)).field());
    Refused stranger = assertThrows(Refused.class, () -> t.replace(List.of("c9"), 1));
    assertEquals("c9", stranger.value());
    Refused none = assertThrows(Refused.class, () -> t.replace(List.of("c3"), 0));
    assertEquals("joiners", none.field());
    assertEquals("0", none.value());
    Refused everyone = assertThrows(Refused.class, () -> t.replace(List.of("c1", "c2", "c3"), 3));
    assertEquals("c1,c2,c3", everyone.value(), "nobody would be left to send the model");
    t.leave("c2");
    assertEquals("c2", assertThrows(Refused.class, () -> t.replace(List.of("c2"), 1)).value(),
        "already leaving");
    assertEquals(0, t.scheduled().get().awaitedJoiners(), "the refusals changed nothing");

    CoordinatorState u = running(2, 2, "c1");
    step(u, 0, "c1", "c2");
    u.replace(List.of("c2"), 1);
    assertEquals("directory", assertThrows(Refused.class, () -> u.stopForRestart("/ckpt")).field(),
        "no stop while the replacement waits for its newcomers");
  }

  /**
   * The AM gives up on a replacement (its call timed out, so it does not know whether the leader
   * holds it): withdrawn before its switch is scheduled, the leavers stay members, and a later
   * newcomer (a scale-out) joins without taking them along. Too late once scheduled.
   */
  @Test
  void aWithdrawnReplacementLeavesNobodyBehind() throws Exception {
    CoordinatorState s = running(3, 4, "c1");
    step(s, 0, "c1", "c2", "c3");
    s.replace(List.of("c3"), 1);
    assertFalse(s.cancelReplace(List.of("c2")), "not the pending one");
    assertTrue(s.cancelReplace(List.of("c3")));
    assertFalse(s.cancelReplace(List.of("c3")), "already withdrawn");
    assertEquals(List.of("c1", "c2", "c3"), s.latestRing().ids(), "no change pending any more");
    s.register(worker(4));
    SwitchPlan order = s.ready("c4").orElseThrow();
    assertEquals(List.of("c4"), order.joiners());
    assertEquals(List.of(), order.leavers());

    CoordinatorState late = running(3, 3, "c1");
    step(late, 0, "c1", "c2", "c3");
    late.replace(List.of("c3"), 1);
    late.register(worker(4));
    late.ready("c4");
    Refused scheduled = assertThrows(Refused.class, () -> late.cancelReplace(List.of("c3")));
    assertEquals("leavers", scheduled.field());
    assertEquals(List.of("c3"), late.scheduled().orElseThrow().leavers(), "the switch stands");
  }

  /** The leader among the leavers: the one switch hands the job over, as a leaving leader's does. */
  @Test
  void aLeaderThatIsReplacedHandsOverAtTheSwitch() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    s.replace(List.of("c1"), 1);
    s.register(worker(4));
    SwitchPlan order = s.ready("c4").orElseThrow();
    assertTrue(order.leaderLeaves());
    assertEquals("c2", order.broadcasterId());
    for (long t = 1; t <= order.atStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertTrue(s.handedOver());
    JobRecord record = s.record();
    assertTrue(record.departed());
    CoordinatorState next = CoordTesting.successor(spec(3, 3), now::get, T_A, "c2", 2, record,
        Set.of("c2", "c3", "c4"));
    assertEquals(Phase.RUNNING, next.phase(), "a graceful departure: no recovery");
    assertEquals(List.of("c2", "c3", "c4"), next.ring().ids());
    step(next, order.atStep() + 1, "c2", "c3", "c4");
    assertTrue(next.isComplete(order.atStep() + 1));
  }

  /**
   * The leader leaves at a scheduled switch while a replacement waits behind it: the successor
   * is handed the replacement and schedules it when the newcomer comes to it.
   */
  @Test
  void aWaitingReplacementIsHandedToTheSuccessor() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchPlan leaving = s.leave("c1");
    assertEquals(-1, s.replace(List.of("c3"), 1).atStep(), "queued behind the leader's leave");
    for (long t = 1; t <= leaving.atStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertTrue(s.handedOver());
    JobRecord record = s.record();
    SwitchPlan pending = record.pending();
    assertEquals(-1, pending.atStep());
    assertEquals(1, pending.awaitedJoiners());
    assertEquals(List.of("c3"), pending.leavers());

    CoordinatorState next = CoordTesting.successor(spec(3, 3), now::get, T_A, "c2", 2, record, Set.of("c2", "c3"));
    assertTrue(next.scheduled().isEmpty(), "it still waits for its newcomer");
    long t = leaving.atStep() + 1;
    step(next, t, "c2", "c3");
    assertEquals(-1, next.replace(List.of("c3"), 1).atStep(), "the AM's retry finds it there");
    next.register(worker(4));
    SwitchPlan order = next.ready("c4").orElseThrow();
    assertEquals(List.of("c4"), order.joiners());
    assertEquals(List.of("c3"), order.leavers());
    assertEquals(List.of("c2", "c4"), order.next().ids());
    assertEquals(3, order.version());
    assertEquals(t + 5, order.atStep());
  }
}
