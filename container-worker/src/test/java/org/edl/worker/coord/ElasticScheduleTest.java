package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.Registration;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.junit.jupiter.api.Test;

/** The leader's schedule of topology switches, driven report by report with a fixed clock. */
class ElasticScheduleTest {
  private static final Duration T_A = Duration.ofMillis(50);
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static JobSpec spec(int workers, int max) {
    return new JobSpec("t", "softmax", "synthetic:samples=64,features=4,classes=3,seed=1", "auto",
        workers, 1, max, 0, 512, 1, 1000, 12, BatchRule.FIXED_GLOBAL, 0.1, 8, 7, "cpu", "", "")
        .validate();
  }

  private CoordinatorState running(int workers, int max, String leaderId) throws EdlError {
    CoordinatorState s = new CoordinatorState(spec(workers, max), now::get, T_A, leaderId);
    for (int i = 1; i <= workers; i++) {
      s.register(worker(i));
    }
    assertEquals(1, s.topologyVersion());
    return s;
  }

  private static WorkerInfo worker(int i) {
    return new WorkerInfo("c" + i, "127.0.0.1", 7000 + i);
  }

  /** Every listed worker reports {@code step} with a 10 ms batch; returns the last reply. */
  private static SyncReply step(CoordinatorState s, long step, String... ids) throws EdlError {
    SyncReply last = null;
    for (String id : ids) {
      SyncReport r = new SyncReport(id, step, 1.0, 0.010, 4);
      r.setBatchStart(step * 12);
      last = s.sync(r);
    }
    return last;
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

    Registration reg = s.register(worker(3));
    assertTrue(reg.isPending());
    assertEquals(2, reg.getTopology().getVersion());
    assertEquals(List.of("c1", "c2", "c3"), ids(reg.getTopology()));
    // v1 keeps training; its members see the pending topology but no order yet.
    SyncReply r = step(s, 2, "c1", "c2");
    assertEquals(2, r.getPendingTopology().getVersion());
    assertFalse(r.isSetSwitchOrder());
    assertTrue(s.orderFor("c3").isEmpty());

    SwitchOrder order = s.ready("c3").orElseThrow();
    // Highest reported step 2, k = ceil(50 ms / 10 ms) = 5.
    assertEquals(7, order.getAtStep());
    assertEquals(2, order.getTopologyVersion());
    assertEquals("c1", order.getBroadcasterId());
    assertEquals(List.of("c3"), order.getJoiners());
    assertFalse(order.isLeaderLeaves());

    assertEquals(order, step(s, 3, "c1", "c2").getSwitchOrder());
    for (long t = 4; t <= 7; t++) {
      step(s, t, "c1", "c2");
    }
    assertEquals(2, s.topologyVersion(), "switched when step 7 completed");
    assertEquals(order, s.orderFor("c3").orElseThrow(), "a newcomer that asks late still learns its order");
    assertThrows(EdlError.class, () -> step(s, 8, "c1", "c2", "c9"));
    step(s, 8, "c1", "c2");
    assertFalse(s.isComplete(8), "step 8 needs the newcomer's report too");
    step(s, 8, "c3");
    assertTrue(s.isComplete(8));
  }

  @Test
  void reportsOfTheNewRingMayArriveBeforeTheSwitchStepCompletes() throws Exception {
    CoordinatorState s = running(2, 3, "c1");
    s.register(worker(3));
    SwitchOrder order = s.ready("c3").orElseThrow();
    assertEquals(0, order.getAtStep(), "nothing reported yet: k = 1 after step -1");
    step(s, 0, "c1");
    step(s, 1, "c3", "c1"); // the newcomer and a fast survivor are already at step 1
    assertEquals(1, s.topologyVersion());
    SyncReply last = step(s, 0, "c2");
    assertEquals(2, s.topologyVersion());
    assertEquals(order, last.getSwitchOrder(), "the report that completes the switch step still carries the order");
    step(s, 1, "c2");
    assertTrue(s.isComplete(1));
  }

  @Test
  void aLeaveIsScheduledAtOnceAndTheLeaverIsGoneAfterTheStep() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchOrder order = s.leave("c2");
    assertEquals(5, order.getAtStep());
    assertEquals(List.of("c1", "c3"), ids(order.getTopology()));
    assertFalse(order.isSetBroadcasterId(), "nobody to send the model to");
    assertEquals(order, s.leave("c2"), "asking twice changes nothing");
    for (long t = 1; t <= 5; t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertEquals(List.of("c1", "c3"), ids(s.topology()));
    EdlError gone = assertThrows(EdlError.class, () -> step(s, 6, "c2"));
    assertEquals("workerId", gone.getField());
    assertThrows(EdlError.class, () -> s.leave("c2"));
  }

  @Test
  void aMigrationIsOneSwitchThatRemovesAndAdds() throws Exception {
    CoordinatorState s = running(2, 2, "c1");
    step(s, 0, "c1", "c2");
    assertThrows(EdlError.class, () -> s.register(worker(3)), "max-workers=2 reached");
    SwitchOrder leaving = s.leave("c2");
    assertEquals(5, leaving.getAtStep(), "nothing else pending: scheduled at once");
    // The AM asks the other way round for a migration: add first, then remove.
    CoordinatorState m = running(2, 3, "c1");
    step(m, 0, "c1", "c2");
    m.register(worker(3));
    SwitchOrder waiting = m.leave("c2");
    assertEquals(-1, waiting.getAtStep(), "merged into the change that waits for c3");
    SwitchOrder order = m.ready("c3").orElseThrow();
    assertEquals(List.of("c1", "c3"), ids(order.getTopology()));
    assertEquals(List.of("c3"), order.getJoiners());
    assertEquals(List.of("c2"), order.getLeavers());
    assertEquals("c1", order.getBroadcasterId());
    assertEquals(2, order.getTopologyVersion(), "one version step for both");
  }

  @Test
  void aChangeAskedForWhileASwitchIsScheduledWaitsForTheNext() throws Exception {
    CoordinatorState s = running(3, 4, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchOrder first = s.leave("c3");
    s.register(worker(4));
    s.ready("c4");
    assertTrue(s.orderFor("c4").isEmpty(), "queued behind the scheduled leave");
    for (long t = 1; t <= first.getAtStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    SwitchOrder second = s.orderFor("c4").orElseThrow();
    assertEquals(3, second.getTopologyVersion());
    assertEquals(List.of("c1", "c2", "c4"), ids(second.getTopology()));
  }

  @Test
  void aLeaderThatLeavesHandsOverAndItsSuccessorCarriesOn() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchOrder order = s.leave("c1");
    assertTrue(order.isLeaderLeaves());
    for (long t = 1; t <= order.getAtStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertTrue(s.handedOver());
    EdlError refused = assertThrows(EdlError.class, () -> step(s, order.getAtStep() + 1, "c2"));
    assertEquals("coordinator", refused.getField(), "the old leader must not swallow reports");

    CoordinatorState next = CoordinatorState.resume(spec(3, 3), now::get, T_A, "c2", s.handoff());
    assertEquals(order.getAtStep() + 1, next.meta().getStep());
    assertEquals(List.of("c2", "c3"), ids(next.topology()));
    assertEquals(12 * (order.getAtStep() + 1), next.meta().getSamplesSeen());
    step(next, order.getAtStep() + 1, "c2", "c3");
    assertTrue(next.isComplete(order.getAtStep() + 1));
  }

  @Test
  void aNewcomerStillPreparingIsHandedToTheSuccessorAndScheduledThereWhenReady() throws Exception {
    CoordinatorState s = running(3, 4, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchOrder leaving = s.leave("c1");
    s.register(worker(4)); // arrives while the leader's leave is scheduled: queued
    for (long t = 1; t <= leaving.getAtStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    CoordinatorState.Handoff h = s.handoff();
    SwitchOrder pending = h.pending().orElseThrow();
    assertEquals(-1, pending.getAtStep());
    assertEquals(List.of("c2", "c3", "c4"), ids(pending.getTopology()));

    CoordinatorState next = CoordinatorState.resume(spec(3, 4), now::get, T_A, "c2", h);
    long t = leaving.getAtStep() + 1;
    step(next, t, "c2", "c3");
    SwitchOrder order = next.ready("c4").orElseThrow();
    assertEquals(List.of("c4"), order.getJoiners());
    assertEquals("c2", order.getBroadcasterId());
    assertEquals(3, order.getTopologyVersion());
    assertEquals(t + 5, order.getAtStep());
  }

  @Test
  void aSwitchIsNeverScheduledPastTheJobsLastStep() throws Exception {
    CoordinatorState s = running(2, 3, "c1");
    for (long t = 0; t < 997; t++) {
      step(s, t, "c1", "c2");
    }
    s.register(worker(3));
    assertEquals(999, s.ready("c3").orElseThrow().getAtStep(), "1000 steps: 996 + 5 is past the last, 999");
    CoordinatorState late = running(2, 3, "c1");
    for (long t = 0; t < 998; t++) {
      step(late, t, "c1", "c2");
    }
    late.register(worker(3));
    assertEquals(999, late.ready("c3").orElseThrow().getAtStep());
  }

  @Test
  void membersThatDisagreeOnTheBatchStartAreRefused() throws Exception {
    CoordinatorState s = running(2, 2, "c1");
    SyncReport a = new SyncReport("c1", 0, 1.0, 0.01, 6);
    a.setBatchStart(0);
    s.sync(a);
    SyncReport b = new SyncReport("c2", 0, 1.0, 0.01, 6);
    b.setBatchStart(6);
    assertEquals("batchStart", assertThrows(EdlError.class, () -> s.sync(b)).getField());
  }

  private static List<String> ids(Topology t) {
    return t.getRing().stream().map(WorkerInfo::getWorkerId).toList();
  }
}
