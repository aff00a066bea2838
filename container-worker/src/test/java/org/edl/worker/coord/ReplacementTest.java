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
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
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
    return new JobSpec("t", "softmax", "synthetic:samples=64,features=4,classes=3,seed=1", "auto",
        workers, 1, max, 0, 512, 1, 1000, 12, BatchRule.FIXED_GLOBAL, 0.1, 8, 7, "cpu", "", "")
        .validate();
  }

  private CoordinatorState running(int workers, int max, String leaderId) throws EdlError {
    CoordinatorState s = new CoordinatorState(spec(workers, max), now::get, T_A, leaderId);
    for (int i = 1; i <= workers; i++) {
      s.register(worker(i));
    }
    return s;
  }

  private static WorkerInfo worker(int i) {
    return new WorkerInfo("c" + i, "127.0.0.1", 7000 + i);
  }

  private static SyncReply step(CoordinatorState s, long step, String... ids) throws EdlError {
    SyncReply last = null;
    for (String id : ids) {
      SyncReport r = new SyncReport(id, step, 1.0, 0.010, 4);
      r.setBatchStart(step * 12);
      last = s.sync(r);
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
    SwitchOrder announced = s.replace(List.of("c3"), 1);
    assertEquals(-1, announced.getAtStep());
    assertEquals(1, announced.getAwaitedJoiners());
    assertEquals(List.of("c3"), announced.getLeavers());

    assertTrue(s.register(worker(4)).isPending());
    assertEquals("workerId", assertThrows(EdlError.class, () -> s.register(worker(5))).getField(),
        "only the awaited newcomer is admitted beyond the ring's size");
    SwitchOrder order = s.ready("c4").orElseThrow();
    assertEquals(2, order.getTopologyVersion(), "one version step for both");
    assertEquals(5, order.getAtStep());
    assertEquals(List.of("c4"), order.getJoiners());
    assertEquals(List.of("c3"), order.getLeavers());
    assertEquals(List.of("c1", "c2", "c4"), ids(order.getTopology()));
    assertEquals("c1", order.getBroadcasterId());
    assertFalse(order.isLeaderLeaves());

    for (long t = 1; t <= order.getAtStep(); t++) {
      SyncReply r = step(s, t, "c1", "c2", "c3");
      assertEquals(2, r.getSwitchOrder().getTopologyVersion(), "the same order to every member");
    }
    assertEquals(List.of("c1", "c2", "c4"), ids(s.topology()));
    step(s, order.getAtStep() + 1, "c1", "c2", "c4");
    assertTrue(s.isComplete(order.getAtStep() + 1));
  }

  /** Until the newcomers come, the leavers are ordinary members: nothing waits for them. */
  @Test
  void leaversTrainOnWhileTheNewcomersAreOnTheirWay() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    s.replace(List.of("c2", "c3"), 2);
    for (long t = 0; t < 20; t++) {
      SyncReply r = step(s, t, "c1", "c2", "c3");
      assertFalse(r.isSetSwitchOrder());
    }
    assertEquals(20, s.meta().getStep());
    s.register(worker(4));
    assertTrue(s.ready("c4").isEmpty(), "one of two newcomers: not yet");
    step(s, 20, "c1", "c2", "c3");
    s.register(worker(5));
    SwitchOrder order = s.ready("c5").orElseThrow();
    assertEquals(List.of("c4", "c5"), order.getJoiners());
    assertEquals(List.of("c2", "c3"), order.getLeavers());
    assertEquals(List.of("c1", "c4", "c5"), ids(order.getTopology()));
    assertEquals(25, order.getAtStep());
  }

  /** The count is of newcomers still to come: one already waiting does not stand in for them. */
  @Test
  void aNewcomerThatRegisteredBeforeTheReplacementDoesNotCount() throws Exception {
    CoordinatorState s = running(2, 4, "c1");
    step(s, 0, "c1", "c2");
    s.register(worker(3));
    assertEquals(2, s.replace(List.of("c2"), 1).getAwaitedJoiners());
    assertTrue(s.ready("c3").isEmpty());
    s.register(worker(4));
    SwitchOrder order = s.ready("c4").orElseThrow();
    assertEquals(List.of("c3", "c4"), order.getJoiners());
    assertEquals(List.of("c2"), order.getLeavers());
  }

  @Test
  void aRetriedReplacementIsHarmlessAndOthersAreRefusedNamingTheField() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    s.replace(List.of("c3"), 1);
    assertEquals(-1, s.replace(List.of("c3"), 1).getAtStep(), "a retried call");
    EdlError twice = assertThrows(EdlError.class, () -> s.replace(List.of("c2"), 1));
    assertEquals("leavers", twice.getField());
    assertEquals("c2", twice.getValue());

    CoordinatorState t = running(3, 3, "c1");
    step(t, 0, "c1", "c2", "c3");
    assertEquals("leavers", assertThrows(EdlError.class, () -> t.replace(List.of(), 1)).getField());
    EdlError stranger = assertThrows(EdlError.class, () -> t.replace(List.of("c9"), 1));
    assertEquals("c9", stranger.getValue());
    EdlError none = assertThrows(EdlError.class, () -> t.replace(List.of("c3"), 0));
    assertEquals("joiners", none.getField());
    assertEquals("0", none.getValue());
    EdlError everyone = assertThrows(EdlError.class, () -> t.replace(List.of("c1", "c2", "c3"), 3));
    assertEquals("c1,c2,c3", everyone.getValue(), "nobody would be left to send the model");
    t.leave("c2");
    assertEquals("c2", assertThrows(EdlError.class, () -> t.replace(List.of("c2"), 1)).getValue(),
        "already leaving");
    assertFalse(t.scheduled().get().isSetAwaitedJoiners(), "the refusals changed nothing");

    CoordinatorState u = running(2, 2, "c1");
    step(u, 0, "c1", "c2");
    u.replace(List.of("c2"), 1);
    assertEquals("directory", assertThrows(EdlError.class, () -> u.stopForRestart("/ckpt")).getField(),
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
    assertEquals(List.of("c1", "c2", "c3"), ids(s.latestTopology()), "no change pending any more");
    s.register(worker(4));
    SwitchOrder order = s.ready("c4").orElseThrow();
    assertEquals(List.of("c4"), order.getJoiners());
    assertEquals(List.of(), order.getLeavers());

    CoordinatorState late = running(3, 3, "c1");
    step(late, 0, "c1", "c2", "c3");
    late.replace(List.of("c3"), 1);
    late.register(worker(4));
    late.ready("c4");
    EdlError scheduled = assertThrows(EdlError.class, () -> late.cancelReplace(List.of("c3")));
    assertEquals("leavers", scheduled.getField());
    assertEquals(List.of("c3"), late.scheduled().orElseThrow().getLeavers(), "the switch stands");
  }

  /** The leader among the leavers: the one switch hands the job over, as a leaving leader's does. */
  @Test
  void aLeaderThatIsReplacedHandsOverAtTheSwitch() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    s.replace(List.of("c1"), 1);
    s.register(worker(4));
    SwitchOrder order = s.ready("c4").orElseThrow();
    assertTrue(order.isLeaderLeaves());
    assertEquals("c2", order.getBroadcasterId());
    for (long t = 1; t <= order.getAtStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    assertTrue(s.handedOver());
    CoordinatorState next = CoordinatorState.resume(spec(3, 3), now::get, T_A, "c2", s.handoff());
    assertEquals(List.of("c2", "c3", "c4"), ids(next.topology()));
    step(next, order.getAtStep() + 1, "c2", "c3", "c4");
    assertTrue(next.isComplete(order.getAtStep() + 1));
  }

  /**
   * The leader leaves at a scheduled switch while a replacement waits behind it: the successor
   * is handed the replacement and schedules it when the newcomer comes to it.
   */
  @Test
  void aWaitingReplacementIsHandedToTheSuccessor() throws Exception {
    CoordinatorState s = running(3, 3, "c1");
    step(s, 0, "c1", "c2", "c3");
    SwitchOrder leaving = s.leave("c1");
    assertEquals(-1, s.replace(List.of("c3"), 1).getAtStep(), "queued behind the leader's leave");
    for (long t = 1; t <= leaving.getAtStep(); t++) {
      step(s, t, "c1", "c2", "c3");
    }
    CoordinatorState.Handoff h = s.handoff();
    SwitchOrder pending = h.pending().orElseThrow();
    assertEquals(-1, pending.getAtStep());
    assertEquals(1, pending.getAwaitedJoiners());
    assertEquals(List.of("c3"), pending.getLeavers());

    CoordinatorState next = CoordinatorState.resume(spec(3, 3), now::get, T_A, "c2", h);
    long t = leaving.getAtStep() + 1;
    step(next, t, "c2", "c3");
    assertEquals(-1, next.replace(List.of("c3"), 1).getAtStep(), "the AM's retry finds it there");
    next.register(worker(4));
    SwitchOrder order = next.ready("c4").orElseThrow();
    assertEquals(List.of("c4"), order.getJoiners());
    assertEquals(List.of("c3"), order.getLeavers());
    assertEquals(List.of("c2", "c4"), ids(order.getTopology()));
    assertEquals(3, order.getTopologyVersion());
    assertEquals(t + 5, order.getAtStep());
  }

  private static List<String> ids(Topology t) {
    return t.getRing().stream().map(WorkerInfo::getWorkerId).toList();
  }
}
