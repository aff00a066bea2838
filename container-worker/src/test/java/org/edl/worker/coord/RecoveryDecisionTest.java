package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobMeta;
import org.edl.thrift.RecoveryMode;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.Recovery;
import org.junit.jupiter.api.Test;

/**
 * The leader's failure and recovery decisions, on a clock the test moves: who is declared
 * failed and when, what the survivors are told, and where the job's count goes back to.
 * Three workers, global batch 12 (4 samples each), the leader is container_01.
 */
class RecoveryDecisionTest {
  private static final long S = 1_000_000_000L;
  private static final String A = "container_01";
  private static final String B = "container_02";
  private static final String C = "container_03";
  private final AtomicLong now = new AtomicLong(1_000 * S);

  private CoordinatorState state(Recovery.Mode mode) throws EdlError {
    CoordinatorState s = new CoordinatorState(CoordinatorStateTest.spec(3).withRecovery(new Recovery(mode, 2_000, 3)),
        now::get, Duration.ofMillis(500), A);
    for (String id : List.of(A, B, C)) {
      s.register(new WorkerInfo(id, "127.0.0.1", 7000 + id.charAt(id.length() - 1)));
    }
    s.presence(Set.of(A, B, C));
    return s;
  }

  private static SyncReply sync(CoordinatorState s, String id, long step) throws EdlError {
    SyncReport r = new SyncReport(id, step, 1.0, 0.01, 4);
    r.setBatchStart(step * 12);
    r.setEpochSize(64);
    return s.sync(r);
  }

  /** Steps 0..last completed by all three. */
  private static void trainThrough(CoordinatorState s, long last) throws EdlError {
    for (long step = 0; step <= last; step++) {
      for (String id : List.of(A, B, C)) {
        sync(s, id, step);
      }
    }
  }

  private static JobMeta at(long step) {
    JobMeta m = new JobMeta(step, 0, org.edl.thrift.BatchRule.FIXED_GLOBAL, 12, 0.1);
    m.setSamplesSeen(step * 12);
    return m;
  }

  @Test
  void consistentRecoveryGoesBackToTheNewestCheckpointAndFencesTheLostWorker() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 4);
    s.checkpointWritten("ckpt-2", at(2));
    s.checkpointWritten("ckpt-3", at(3));
    s.presence(Set.of(A, B));
    assertTrue(s.recoveryPending(), "a member without a presence node failed");
    assertTrue(sync(s, A, 5).isRecover(), "the survivors learn it from their sync replies");

    assertEquals(Optional.empty(), s.requestRecovery(A, 5, 72), "B has not asked yet");
    RecoveryOrder o = s.requestRecovery(B, 4, 60).orElseThrow();
    assertEquals(2, o.getTopologyVersion());
    assertEquals(List.of(A, B), o.getTopology().getRing().stream().map(WorkerInfo::getWorkerId).toList());
    assertEquals(RecoveryMode.CONSISTENT, o.getMode());
    assertEquals(List.of(C), o.getFailed());
    assertEquals("ckpt-3", o.getCheckpoint());
    assertEquals(3, o.getNextStep());
    assertEquals(36, o.getBatchStart());
    assertEquals(3, s.meta().getStep(), "steps 3 and 4 are counted again when they are redone, not twice");
    assertEquals(36, s.meta().getSamplesSeen());
    assertEquals(o, s.requestRecovery(A, 5, 72).orElseThrow(), "A gets the decided order");

    EdlError fenced = assertThrows(EdlError.class, () -> sync(s, C, 5));
    assertTrue(CoordinatorClient.isFenced(fenced), fenced.getMessage());
    assertTrue(CoordinatorClient.isFenced(assertThrows(EdlError.class,
        () -> s.register(new WorkerInfo(C, "127.0.0.1", 7003)))), "nor may it register again under its id");

    sync(s, A, 3);
    sync(s, B, 3);
    assertEquals(4, s.meta().getStep());
    assertEquals(36 + 2 * 4, s.meta().getSamplesSeen(), "the two survivors' samples");
    assertTrue(s.events().get(s.events().size() - 1).contains(C + " failed"), s.events().toString());
  }

  @Test
  void aNewestCheckpointThatNoLongerVerifiesGivesWayToTheOneBeforeAndIsReported() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    // As a worker's check finds it: ckpt-3 was damaged after it was written, ckpt-2 verifies.
    s.checkpointCheck((path, meta) -> path.equals("ckpt-3")
        ? Optional.of(new CheckpointCheck.Usable("ckpt-2", at(2))) : Optional.of(new CheckpointCheck.Usable(path, meta)));
    trainThrough(s, 4);
    s.checkpointWritten("ckpt-2", at(2));
    s.checkpointWritten("ckpt-3", at(3));
    s.presence(Set.of(A, B));
    s.requestRecovery(A, 4, 60);
    RecoveryOrder o = s.requestRecovery(B, 4, 60).orElseThrow();
    assertEquals("ckpt-2", o.getCheckpoint());
    assertEquals(2, o.getNextStep());
    assertEquals(24, o.getBatchStart());
    assertEquals(24, s.meta().getSamplesSeen(), "counted from the checkpoint actually loaded");
    assertTrue(s.events().stream().anyMatch(e -> e.contains("checkpoint ckpt-3 does not verify; recovery goes back"
        + " to checkpoint ckpt-2 (step 2)")), s.events().toString());
    assertEquals("ckpt-2", s.record().getCheckpoint(), "a successor is told the one that verifies");

    // When none verifies: the initial state.
    CoordinatorState none = state(Recovery.Mode.CONSISTENT);
    none.checkpointCheck((path, meta) -> Optional.empty());
    trainThrough(none, 4);
    none.checkpointWritten("ckpt-3", at(3));
    none.presence(Set.of(A, B));
    none.requestRecovery(A, 4, 60);
    RecoveryOrder fromStart = none.requestRecovery(B, 4, 60).orElseThrow();
    assertFalse(fromStart.isSetCheckpoint());
    assertEquals(0, fromStart.getNextStep());
  }

  @Test
  void approximateRecoveryGoesOnFromTheSurvivorWithTheMostProgress() throws Exception {
    CoordinatorState s = state(Recovery.Mode.APPROXIMATE);
    trainThrough(s, 4);
    s.checkpointWritten("ckpt-3", at(3));
    s.presence(Set.of(A, B));
    // The all-reduce of step 5 died after A had all of it and before B had.
    s.requestRecovery(B, 4, 60);
    RecoveryOrder o = s.requestRecovery(A, 5, 72).orElseThrow();
    assertEquals(RecoveryMode.APPROXIMATE, o.getMode());
    assertEquals(A, o.getSourceId());
    assertEquals(6, o.getNextStep());
    assertEquals(72, o.getBatchStart());
    assertFalse(o.isSetCheckpoint());
    assertEquals(6, s.meta().getStep());
    assertEquals(72, s.meta().getSamplesSeen());
  }

  @Test
  void approximateWithNoModelLeftIntactFallsBackToTheInitialState() throws Exception {
    CoordinatorState s = state(Recovery.Mode.APPROXIMATE);
    trainThrough(s, 1);
    s.presence(Set.of(A, B));
    s.requestRecovery(A, CoordinatorState.MODEL_LOST, 0);
    RecoveryOrder o = s.requestRecovery(B, CoordinatorState.MODEL_LOST, 0).orElseThrow();
    assertEquals(RecoveryMode.CONSISTENT, o.getMode());
    assertFalse(o.isSetCheckpoint(), "no checkpoint yet: the initial state");
    assertEquals(0, o.getNextStep());
    assertEquals(0, s.meta().getSamplesSeen());
  }

  @Test
  void aMemberThatMissesItsSyncByTheTimeoutIsDeclaredFailed() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 4);
    sync(s, A, 5);
    sync(s, B, 5);
    now.addAndGet(2 * S);
    s.checkFailures(now.get());
    assertFalse(s.recoveryPending(), "2 s is within the sync timeout");
    now.addAndGet(1);
    s.checkFailures(now.get());
    assertTrue(s.recoveryPending());
    assertEquals(Set.of(C), s.fenced().keySet());
  }

  @Test
  void theFirstStepsOfARingGetMoreTime() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    sync(s, A, 0);
    sync(s, B, 0);
    now.addAndGet(5 * S);
    s.checkFailures(now.get());
    assertFalse(s.recoveryPending(), "step 0 gets three times the sync timeout");
    now.addAndGet(S + 1);
    s.checkFailures(now.get());
    assertEquals(Set.of(C), s.fenced().keySet());
  }

  @Test
  void aMemberSilentWhileTheOthersAskForRecoveryIsDeclaredFailed() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 4);
    // C hangs with its sockets open: A and B time out in the all-reduce and ask.
    assertEquals(Optional.empty(), s.requestRecovery(A, 4, 60));
    now.addAndGet(2 * S + 1);
    RecoveryOrder o = s.requestRecovery(B, 4, 60).orElseThrow();
    assertEquals(List.of(C), o.getFailed());
    assertEquals(0, o.getNextStep(), "no checkpoint: back to the start");
  }

  @Test
  void aWorkerThatFinishedOrTheLeaderItselfIsNotFailedWhenItsNodeGoes() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    s.presence(Set.of(B, C));
    assertFalse(s.recoveryPending(), "the leader never declares itself failed");
    trainThrough(s, 9);
    s.presence(Set.of(A));
    assertFalse(s.recoveryPending(), "B and C reported the job's last step and closed their clients");
  }
}
