package org.edl.worker.coord;

import static org.edl.worker.coord.CoordTesting.member;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.edl.worker.coord.rpc.Wire;
import org.junit.jupiter.api.Test;

/** The leader's schedule of topology switches, driven report by report with a fixed clock. */
class ElasticScheduleTest {
  private static final Duration T_A = Duration.ofMillis(50);
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static JobSpec spec(int workers, int max) {
    return CoordTesting.spec(workers, 1, max, 1000);
  }

  private CoordinatorState running(int workers, int max, String leaderId) throws Refused {
    CoordinatorState s = CoordTesting.leading(spec(workers, max), now::get, T_A, leaderId);
    for (int i = 1; i <= workers; i++) {
      s.register(member(i));
    }
    assertEquals(1, s.ring().version());
    assertEquals(Phase.RUNNING, s.phase());
    return s;
  }

  /** Every listed worker reports {@code step} with a 10 ms batch; returns the last answer. */
  private static SyncAnswer step(CoordinatorState s, long step, String... ids) throws Refused {
    SyncAnswer last = null;
    for (String id : ids) {
      last = s.sync(CoordTesting.report(id, step, 1.0, 0.010, 4, step * 12));
    }
    return last;
  }

  @Test
  void aJoinerExpectedToStartLateTakesASmallerPartOfItsFirstStepAndTheOrderCarriesIt() throws Exception {
    CoordinatorState s = CoordinatorState.forming(spec(4, 5), now::get,
        CoordinatorSettings.DEFAULT.withSwitchAllowance(T_A).withJoinLag(0.13), "c1", 1,
        new Lifecycle("c1"), java.util.Optional.empty());
    for (int i = 1; i <= 4; i++) {
      s.register(member(i));
    }
    for (String id : List.of("c1", "c2", "c3", "c4")) {
      // 0.63 s computing of a 0.78 s batch
      s.sync(StepReport.of(id, 0, 1.0, 0.78, 4).batchStart(0).computeSeconds(0.63).build());
    }
    s.register(member(5));
    SwitchPlan order = s.ready("c5").orElseThrow();
    assertEquals(JoinerShare.of(4, 1, 0.63, 0.13), order.joinerShare());
    assertEquals(0.8, order.joinerShare());
    org.edl.thrift.SwitchOrder wire = Wire.switchOrder(order);
    assertEquals(0.8, wire.getJoinerShare());
    assertEquals(order, Wire.switchPlan(wire), "members and a successor read the share the leader chose");

    CoordinatorState unknownLag = running(2, 3, "c1");
    step(unknownLag, 0, "c1", "c2");
    unknownLag.register(member(3));
    SwitchPlan even = unknownLag.ready("c3").orElseThrow();
    assertEquals(1, even.joinerShare(), "no model size known: even parts");
    assertFalse(Wire.switchOrder(even).isSetJoinerShare());
  }

  @Test
  void kIsTheAllowanceOverTheBatchTimeRoundedUpAndAtLeastOne() {
    assertEquals(50, CoordinatorState.switchDelaySteps(Duration.ofMillis(500).toNanos(), 0.010));
    assertEquals(4, CoordinatorState.switchDelaySteps(Duration.ofMillis(500).toNanos(), 0.150));
    assertEquals(1, CoordinatorState.switchDelaySteps(Duration.ofMillis(500).toNanos(), 2.0));
    assertEquals(1, CoordinatorState.switchDelaySteps(0, 0.010));
    assertEquals(1, CoordinatorState.switchDelaySteps(Duration.ofMillis(500).toNanos(), 0));
  }

  @Test
  void aNewcomerGetsThePendingTopologyAndTheSwitchWaitsUntilItIsReady() throws Exception {
    CoordinatorState s = running(2, 3, "c1");
    step(s, 0, "c1", "c2");
    step(s, 1, "c1", "c2");

    Admission reg = s.register(member(3));
    assertTrue(reg.pending());
    assertEquals(0, reg.retryAfterMs());
    assertEquals(2, reg.ring().version());
    assertEquals(List.of("c1", "c2", "c3"), reg.ring().ids());
    // v1 keeps training; its members see the pending topology but no order yet.
    SyncAnswer r = step(s, 2, "c1", "c2");
    assertEquals(2, r.pending().orElseThrow().version());
    assertTrue(r.order().isEmpty());
    assertTrue(s.orderFor("c3").isEmpty());
    assertEquals(Phase.RUNNING, s.phase(), "a change waiting for newcomers is no switch yet");

    SwitchPlan order = s.ready("c3").orElseThrow();
    assertEquals(Phase.CHANGING, s.phase());
    // Highest reported step 2, k = ceil(50 ms / 10 ms) = 5.
    assertEquals(7, order.atStep());
    assertEquals(2, order.version());
    assertEquals("c1", order.broadcasterId());
    assertEquals(List.of("c3"), order.joiners());
    assertFalse(order.leaderLeaves());
    assertEquals(1, order.leaderEpoch(), "every plan carries the leader epoch");

    assertEquals(order, step(s, 3, "c1", "c2").order().orElseThrow());
    for (long t = 4; t <= 7; t++) {
      step(s, t, "c1", "c2");
    }
    assertEquals(2, s.ring().version(), "switched when step 7 completed");
    assertEquals(Phase.RUNNING, s.phase());
    assertEquals(order, s.orderFor("c3").orElseThrow(), "a newcomer that asks late still learns its order");
    assertThrows(Refused.class, () -> step(s, 8, "c1", "c2", "c9"));
    step(s, 8, "c1", "c2");
    assertFalse(s.isComplete(8), "step 8 needs the newcomer's report too");
    step(s, 8, "c3");
    assertTrue(s.isComplete(8));
  }

  /**
   * A heartbeat tells the members that stay the scheduled switch as soon as it is scheduled, so they
   * connect its ring while the switch step trains; a leaver and the newcomer learn nothing there.
   */
  @Test
  void aHeartbeatCarriesTheScheduledSwitchToTheMembersThatStayUntilItIsApplied() throws Exception {
    CoordinatorState s = running(3, 4, "c1");
    step(s, 0, "c1", "c2", "c3");
    assertTrue(s.news("c2", -1).ahead().isEmpty(), "nothing scheduled");
    assertFalse(s.news("c2", -1).news());
    s.register(member(4));
    s.leave("c3");
    assertTrue(s.news("c2", -1).ahead().isEmpty(), "the newcomer is not ready yet");
    SwitchPlan order = s.ready("c4").orElseThrow();

    HeartbeatAnswer c2 = s.news("c2", -1);
    assertEquals(order, c2.ahead().orElseThrow());
    assertTrue(c2.news());
    assertEquals(order, s.news("c1", 1).ahead().orElseThrow(), "the leader's own heartbeat too");
    assertTrue(s.news("c2", order.version()).ahead().isEmpty(), "a member that knows it hears nothing new");
    assertTrue(s.news("c3", -1).ahead().isEmpty(), "a leaver connects nothing for the next ring");
    assertTrue(s.news("c4", -1).ahead().isEmpty(), "the newcomer has its order from its ready call");
    assertTrue(s.heartbeat("c2", 1).ahead().isEmpty(), "a plain heartbeat carries no order");

    for (long t = 1; t <= order.atStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertEquals(order.version(), s.ring().version());
    assertTrue(s.news("c2", -1).ahead().isEmpty(), "applied: nothing ahead any more");
  }

  /** While the leader recovers from a failure a heartbeat says abandon, never an order. */
  @Test
  void aRecoveringLeaderSendsNoSwitchAhead() throws Exception {
    CoordinatorState s = running(3, 4, "c1");
    step(s, 0, "c1", "c2", "c3");
    s.register(member(4));
    s.ready("c4").orElseThrow();
    assertTrue(s.news("c2", -1).ahead().isPresent());
    s.presence(Set.of("c1", "c2", "c4"));
    assertEquals(Phase.RECOVERING, s.phase());
    HeartbeatAnswer a = s.news("c2", -1);
    assertEquals(1, a.abandonRing());
    assertTrue(a.ahead().isEmpty());
  }

  @Test
  void reportsOfTheNewRingMayArriveBeforeTheSwitchStepCompletes() throws Exception {
    CoordinatorState s = running(2, 3, "c1");
    s.register(member(3));
    SwitchPlan order = s.ready("c3").orElseThrow();
    assertEquals(0, order.atStep(), "nothing reported yet: k = 1 after step -1");
    step(s, 0, "c1");
    step(s, 1, "c3", "c1"); // the newcomer and a fast survivor are already at step 1
    assertEquals(1, s.ring().version());
    SyncAnswer last = step(s, 0, "c2");
    assertEquals(2, s.ring().version());
    assertEquals(order, last.order().orElseThrow(),
        "the report that completes the switch step still carries the order");
    step(s, 1, "c2");
    assertTrue(s.isComplete(1));
  }

  @Test
  void aLeaveIsScheduledAtOnceAndTheLeaverIsGoneAfterTheStep() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchPlan order = s.leave("c2");
    assertEquals(5, order.atStep());
    assertEquals(List.of("c1", "c3"), order.next().ids());
    assertNull(order.broadcasterId(), "nobody to send the model to");
    assertEquals(order, s.leave("c2"), "asking twice changes nothing");
    for (long t = 1; t <= 5; t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertEquals(List.of("c1", "c3"), s.ring().ids());
    Refused gone = assertThrows(Refused.class, () -> step(s, 6, "c2"));
    assertEquals("workerId", gone.field());
    assertThrows(Refused.class, () -> s.leave("c2"));
  }

  @Test
  void aMigrationIsOneSwitchThatRemovesAndAdds() throws Exception {
    CoordinatorState s = running(2, 2, "c1");
    step(s, 0, "c1", "c2");
    assertThrows(Refused.class, () -> s.register(member(3)), "max-workers=2 reached");
    SwitchPlan leaving = s.leave("c2");
    assertEquals(5, leaving.atStep(), "nothing else pending: scheduled at once");
    // The AM asks the other way round for a migration: add first, then remove.
    CoordinatorState m = running(2, 3, "c1");
    step(m, 0, "c1", "c2");
    m.register(member(3));
    SwitchPlan waiting = m.leave("c2");
    assertEquals(-1, waiting.atStep(), "merged into the change that waits for c3");
    assertFalse(waiting.scheduled());
    SwitchPlan order = m.ready("c3").orElseThrow();
    assertEquals(List.of("c1", "c3"), order.next().ids());
    assertEquals(List.of("c3"), order.joiners());
    assertEquals(List.of("c2"), order.leavers());
    assertEquals("c1", order.broadcasterId());
    assertEquals(2, order.version(), "one version step for both");
  }

  @Test
  void aChangeAskedForWhileASwitchIsScheduledWaitsForTheNext() throws Exception {
    CoordinatorState s = running(3, 4, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchPlan first = s.leave("c3");
    s.register(member(4));
    s.ready("c4");
    assertTrue(s.orderFor("c4").isEmpty(), "queued behind the scheduled leave");
    for (long t = 1; t <= first.atStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    SwitchPlan second = s.orderFor("c4").orElseThrow();
    assertEquals(3, second.version());
    assertEquals(List.of("c1", "c2", "c4"), second.next().ids());
    assertEquals(Phase.CHANGING, s.phase(), "the queued change was scheduled once the first landed");
  }

  /**
   * The leader leaves at its switch: it ends HANDED_OVER, refuses further reports, and the
   * record it publishes says it departed; a successor goes on from that record without a recovery.
   */
  @Test
  void aLeaderThatLeavesHandsOverAndItsSuccessorCarriesOn() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchPlan order = s.leave("c1");
    assertTrue(order.leaderLeaves());
    for (long t = 1; t <= order.atStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertTrue(s.handedOver());
    assertEquals(Phase.HANDED_OVER, s.phase());
    Refused refused = assertThrows(Refused.class, () -> step(s, order.atStep() + 1, "c2"));
    assertEquals("coordinator", refused.field(), "the old leader must not swallow reports");
    assertEquals(Refused.Kind.NOT_LEADER, refused.kind());
    JobRecord record = s.record();
    assertTrue(record.departed());

    CoordinatorState next = CoordTesting.successor(spec(3, 3), now::get, T_A, "c2", 2, record, Set.of("c2", "c3"));
    assertEquals(Phase.RUNNING, next.phase());
    assertEquals(2, next.leaderEpoch());
    assertEquals(order.atStep() + 1, next.position().step());
    assertEquals(List.of("c2", "c3"), next.ring().ids());
    assertEquals(12 * (order.atStep() + 1), next.position().samplesSeen());
    step(next, order.atStep() + 1, "c2", "c3");
    assertTrue(next.isComplete(order.atStep() + 1));
  }

  @Test
  void aNewcomerStillPreparingIsHandedToTheSuccessorAndScheduledThereWhenReady() throws Exception {
    CoordinatorState s = running(3, 4, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchPlan leaving = s.leave("c1");
    s.register(member(4)); // arrives while the leader's leave is scheduled: queued
    for (long t = 1; t <= leaving.atStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    JobRecord record = s.record();
    SwitchPlan pending = record.pending();
    assertEquals(-1, pending.atStep());
    assertEquals(List.of("c2", "c3", "c4"), pending.next().ids());
    assertEquals(List.of("c4"), pending.joiners());

    CoordinatorState next = CoordTesting.successor(spec(3, 4), now::get, T_A, "c2", 2, record,
        Set.of("c2", "c3", "c4"));
    assertEquals(Phase.RUNNING, next.phase(), "c4 is not ready for the successor yet");
    long t = leaving.atStep() + 1;
    step(next, t, "c2", "c3");
    SwitchPlan order = next.ready("c4").orElseThrow();
    assertEquals(List.of("c4"), order.joiners());
    assertEquals("c2", order.broadcasterId());
    assertEquals(3, order.version());
    assertEquals(t + 5, order.atStep());
    assertEquals(2, order.leaderEpoch());
  }

  @Test
  void aSwitchIsNeverScheduledPastTheJobsLastStep() throws Exception {
    CoordinatorState s = running(2, 3, "c1");
    for (long t = 0; t < 997; t++) {
      step(s, t, "c1", "c2");
    }
    s.register(member(3));
    assertEquals(999, s.ready("c3").orElseThrow().atStep(), "1000 steps: 996 + 5 is past the last, 999");
    CoordinatorState late = running(2, 3, "c1");
    for (long t = 0; t < 998; t++) {
      step(late, t, "c1", "c2");
    }
    late.register(member(3));
    assertEquals(999, late.ready("c3").orElseThrow().atStep());
  }

  @Test
  void membersThatDisagreeOnTheBatchStartAreRefused() throws Exception {
    CoordinatorState s = running(2, 2, "c1");
    s.sync(CoordTesting.report("c1", 0, 1.0, 0.01, 6, 0));
    assertEquals("batchStart", assertThrows(Refused.class,
        () -> s.sync(CoordTesting.report("c2", 0, 1.0, 0.01, 6, 6))).field());
  }
}
