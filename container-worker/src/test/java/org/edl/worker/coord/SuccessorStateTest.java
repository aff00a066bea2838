package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobMeta;
import org.edl.thrift.LeaderRecord;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.SyncReport;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.junit.jupiter.api.Test;

/** What a successor leader carries on with: straggler counts, the newest checkpoint, the fenced. */
class SuccessorStateTest {
  private static final Duration T_A = Duration.ofMillis(20);
  private final AtomicLong now = new AtomicLong(5_000_000_000L);
  private final JobSpec spec = new JobSpec("t", "softmax", "synthetic:samples=64,features=4,classes=3,seed=1",
      "auto", 3, 1, 3, 0, 512, 1, 1000, 12, BatchRule.FIXED_GLOBAL, 0.1, 8, 7, "cpu", "", "")
      .withStragglers(1.2, 3, false);

  private CoordinatorState running() throws EdlError {
    CoordinatorState s = new CoordinatorState(spec, now::get, T_A, "c1");
    for (int i = 1; i <= 3; i++) {
      s.register(new WorkerInfo("c" + i, "127.0.0.1", 7000 + i));
    }
    s.presence(Set.of("c1", "c2", "c3"));
    return s;
  }

  /** Every member reports {@code step}: 10 ms of compute, c3 30 ms when {@code slow}. */
  private void step(CoordinatorState s, long step, boolean slow) throws EdlError {
    for (String id : List.of("c1", "c2", "c3")) {
      SyncReport r = new SyncReport(id, step, 1.0, slow ? 0.030 : 0.010, 4);
      r.setBatchStart(step * 12);
      r.setComputeSeconds(slow && id.equals("c3") ? 0.030 : 0.010);
      s.sync(r);
    }
    now.addAndGet(10_000_000L);
  }

  @Test
  void aSuccessorGoesOnCountingSlowBatchesWhereTheLeaderLeftOff() throws Exception {
    CoordinatorState leader = running();
    step(leader, 0, true);
    step(leader, 1, true);
    assertEquals(List.of(), leader.events());
    CoordinatorState successor = CoordinatorState.resume(spec, now::get, T_A, "c2", leader.handoff());
    step(successor, 2, true);
    assertEquals(1, successor.events().size(), "the third slow batch in a row names c3: " + successor.events());
    assertTrue(successor.events().get(0).contains("removing straggler c3"), successor.events().toString());
  }

  @Test
  void aSuccessorThatWasHandedTheJobTakesTheNewestCheckpointAndTheFencedFromTheRecord() throws Exception {
    CoordinatorState leader = running();
    for (long i = 0; i < 4; i++) {
      step(leader, i, false);
    }
    JobMeta at3 = new JobMeta(3, 0, BatchRule.FIXED_GLOBAL, 12, 0.1);
    at3.setSamplesSeen(36);
    leader.checkpointWritten("ckpt-3", at3);
    CoordinatorState successor = CoordinatorState.resume(spec, now::get, T_A, "c2", leader.handoff());
    successor.adopt(leader.record());
    successor.presence(Set.of("c2", "c3"));
    successor.requestRecovery("c3", 3, 48);
    RecoveryOrder o = successor.requestRecovery("c2", 3, 48).orElseThrow();
    assertEquals(List.of("c1"), o.getFailed(), "the old leader, gone without leaving, failed");
    assertEquals("ckpt-3", o.getCheckpoint());
    assertEquals(3, o.getNextStep());
  }
  /**
   * The leader leaves at a switch, but its successor is elected before the hand-off reached it
   * (the hand-off call failed, or the election was faster): it takes over from the record the
   * leaving leader published after its switch, and the job goes on from there without a
   * recovery. An older record (the one of the switch before) would send everybody back.
   */
  @Test
  void aSuccessorElectedWithoutTheHandOffGoesOnFromTheLeavingLeadersLastRecordWithoutARecovery() throws Exception {
    CoordinatorState leader = running();
    for (long i = 0; i < 4; i++) {
      step(leader, i, false);
    }
    LeaderRecord before = leader.record();
    var order = leader.leave("c1");
    assertTrue(order.isLeaderLeaves());
    for (long i = 4; i <= order.getAtStep(); i++) {
      step(leader, i, false);
    }
    assertTrue(leader.handedOver());
    LeaderRecord departure = leader.record();
    assertEquals(order.getAtStep() + 1, departure.getMeta().getStep());

    CoordinatorState successor = CoordinatorState.takeOver(spec, now::get, T_A, "c2", departure);
    successor.presence(Set.of("c2", "c3"));
    assertFalse(successor.recoveryPending(), "a graceful departure is no failure");
    assertEquals(Map.of(), successor.fenced());
    long next = order.getAtStep() + 1;
    for (String id : List.of("c2", "c3")) {
      SyncReport r = new SyncReport(id, next, 1.0, 0.010, 6);
      r.setBatchStart(next * 12);
      assertFalse(successor.sync(r).isRecover());
    }
    assertEquals(next + 1, successor.meta().getStep(), "the two survivors completed the next step");

    // What the successor would have done from the record of the last change before the leave.
    CoordinatorState stale = CoordinatorState.takeOver(spec, now::get, T_A, "c2", before);
    assertTrue(stale.recoveryPending(), "the leader named in its own ring went without a hand-over: recovery");
  }
  /**
   * The AM's leaves arrive one at a time: the leader's own is scheduled first, the next waits
   * for the switch after it. The successor is handed that unscheduled change and schedules it;
   * before, it held it until another call came, the leavers trained on, and the AM's grace ran
   * out: their containers were killed and the successor recovered from their deaths.
   */
  @Test
  void aSuccessorSchedulesTheLeaveThatWaitedBehindTheLeadersOwn() throws Exception {
    CoordinatorState leader = running();
    step(leader, 0, false);
    var first = leader.leave("c1");
    leader.leave("c3");
    for (long i = 1; i <= first.getAtStep(); i++) {
      step(leader, i, false);
    }
    assertTrue(leader.handedOver());
    CoordinatorState successor = CoordinatorState.resume(spec, now::get, T_A, "c2", leader.handoff());
    var order = successor.scheduled().orElseThrow(() -> new AssertionError("the waiting leave was not scheduled"));
    assertEquals(List.of("c3"), order.getLeavers());
    assertTrue(order.getAtStep() > first.getAtStep());
  }
}
