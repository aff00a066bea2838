package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.worker.job.JobSpec;
import org.edl.worker.job.Recovery;
import org.junit.jupiter.api.Test;

/**
 * The leader's failure and recovery decisions, on a clock the test moves: who is declared
 * failed and when, what the survivors are told, and where the job's count goes back to.
 * Three workers, global batch 12 (4 samples each), sync timeout 2 s, the leader is container_01.
 */
class RecoveryDecisionTest {
  private static final long S = 1_000_000_000L;
  private static final String A = "container_01";
  private static final String B = "container_02";
  private static final String C = "container_03";
  private final AtomicLong now = new AtomicLong(1_000 * S);

  private static JobSpec spec(Recovery.Mode mode, int max) {
    return CoordTesting.spec(3, 1, max, 10).withRecovery(new Recovery(mode, 2_000, 3));
  }

  private CoordinatorState state(Recovery.Mode mode) throws Refused {
    return state(mode, 3, CoordinatorState.Settings.DEFAULT.withSwitchAllowance(Duration.ofMillis(500)));
  }

  private CoordinatorState state(Recovery.Mode mode, int max, CoordinatorState.Settings settings) throws Refused {
    CoordinatorState s = CoordinatorState.forming(spec(mode, max), now::get, settings, A, 1, new Lifecycle(A),
        Optional.empty());
    for (String id : List.of(A, B, C)) {
      s.register(member(id));
    }
    s.presence(Set.of(A, B, C));
    return s;
  }

  private static Member member(String id) {
    return CoordTesting.member(id, 7000 + id.charAt(id.length() - 1));
  }

  private static SyncAnswer sync(CoordinatorState s, String id, long step) throws Refused {
    return s.sync(new StepReport(id, step, 1.0, 0.01, 4, step * 12, 64, -1, 0));
  }

  /** Steps 0..last completed by all three. */
  private static void trainThrough(CoordinatorState s, long last) throws Refused {
    for (long step = 0; step <= last; step++) {
      for (String id : List.of(A, B, C)) {
        sync(s, id, step);
      }
    }
  }

  private static JobPosition at(long step) {
    return new JobPosition(step, 0, step * 12, 0, Double.NaN);
  }

  private static CheckpointRef checkpoint(String path, long step) {
    return new CheckpointRef(path, at(step));
  }

  @Test
  void consistentRecoveryGoesBackToTheNewestCheckpointAndFencesTheLostWorker() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 4);
    s.checkpointWritten(checkpoint("ckpt-2", 2));
    s.checkpointWritten(checkpoint("ckpt-3", 3));
    s.presence(Set.of(A, B));
    assertTrue(s.recoveryPending(), "a member without a presence node failed");
    assertEquals(Phase.RECOVERING, s.phase());
    assertTrue(sync(s, A, 5).recover(), "the survivors learn it from their sync answers");

    assertEquals(Optional.empty(), s.requestRecovery(A, 5, 72), "B has not asked yet");
    RecoveryPlan o = s.requestRecovery(B, 4, 60).orElseThrow();
    assertEquals(Phase.RUNNING, s.phase());
    assertEquals(2, o.version());
    assertEquals(List.of(A, B), o.ring().ids());
    assertEquals(RecoveryPlan.Mode.CONSISTENT, o.mode());
    assertEquals(List.of(C), o.failed());
    assertEquals("ckpt-3", o.checkpoint());
    assertEquals(3, o.nextStep());
    assertEquals(36, o.batchStart());
    assertEquals(1, o.leaderEpoch());
    assertEquals(3, s.position().step(), "steps 3 and 4 are counted again when they are redone, not twice");
    assertEquals(36, s.position().samplesSeen());
    assertEquals(o, s.requestRecovery(A, 5, 72).orElseThrow(), "A gets the decided order");
    assertEquals(o, s.decidedFor(A).orElseThrow(), "also when it waited for it");

    Refused fenced = assertThrows(Refused.class, () -> sync(s, C, 5));
    assertEquals(Refused.Kind.FENCED, fenced.kind());
    assertTrue(CoordinatorClient.isFenced(Wire.error(fenced)), fenced.getMessage());
    Refused again = assertThrows(Refused.class, () -> s.register(member(C)));
    assertEquals(Refused.Kind.FENCED, again.kind(), "nor may it register again under its id");
    assertTrue(CoordinatorClient.isFenced(Wire.error(again)));

    sync(s, A, 3);
    sync(s, B, 3);
    assertEquals(4, s.position().step());
    assertEquals(36 + 2 * 4, s.position().samplesSeen(), "the two survivors' samples");
    assertTrue(s.events().get(s.events().size() - 1).contains(C + " failed"), s.events().toString());
    assertEquals(List.of(C), s.record().fenced());
  }

  @Test
  void aNewestCheckpointThatNoLongerVerifiesGivesWayToTheOneBeforeAndIsReported() throws Exception {
    // As a worker's check finds it: ckpt-3 was damaged after it was written, ckpt-2 verifies.
    CheckpointCheck check = ref -> ref.path().equals("ckpt-3") ? Optional.of(checkpoint("ckpt-2", 2))
        : Optional.of(ref);
    CoordinatorState s = state(Recovery.Mode.CONSISTENT, 3,
        new CoordinatorState.Settings(Duration.ofMillis(500), EpochGuard.TRUSTING, check));
    trainThrough(s, 4);
    s.checkpointWritten(checkpoint("ckpt-2", 2));
    s.checkpointWritten(checkpoint("ckpt-3", 3));
    s.presence(Set.of(A, B));
    s.requestRecovery(A, 4, 60);
    RecoveryPlan o = s.requestRecovery(B, 4, 60).orElseThrow();
    assertEquals("ckpt-2", o.checkpoint());
    assertEquals(2, o.nextStep());
    assertEquals(24, o.batchStart());
    assertEquals(24, s.position().samplesSeen(), "counted from the checkpoint actually loaded");
    assertTrue(s.events().stream().anyMatch(e -> e.contains("checkpoint ckpt-3 does not verify; recovery goes back"
        + " to checkpoint ckpt-2 (step 2)")), s.events().toString());
    assertEquals("ckpt-2", s.record().checkpoint().path(), "a successor is told the one that verifies");

    // When none verifies: the initial state.
    CoordinatorState none = state(Recovery.Mode.CONSISTENT, 3,
        new CoordinatorState.Settings(Duration.ofMillis(500), EpochGuard.TRUSTING, ref -> Optional.empty()));
    trainThrough(none, 4);
    none.checkpointWritten(checkpoint("ckpt-3", 3));
    none.presence(Set.of(A, B));
    none.requestRecovery(A, 4, 60);
    RecoveryPlan fromStart = none.requestRecovery(B, 4, 60).orElseThrow();
    assertNull(fromStart.checkpoint());
    assertEquals(0, fromStart.nextStep());
    assertNull(none.record().checkpoint());
  }

  @Test
  void approximateRecoveryGoesOnFromTheSurvivorWithTheMostProgress() throws Exception {
    CoordinatorState s = state(Recovery.Mode.APPROXIMATE);
    trainThrough(s, 4);
    s.checkpointWritten(checkpoint("ckpt-3", 3));
    s.presence(Set.of(A, B));
    // The all-reduce of step 5 died after A had all of it and before B had.
    s.requestRecovery(B, 4, 60);
    RecoveryPlan o = s.requestRecovery(A, 5, 72).orElseThrow();
    assertEquals(RecoveryPlan.Mode.APPROXIMATE, o.mode());
    assertEquals(A, o.sourceId());
    assertEquals(6, o.nextStep());
    assertEquals(72, o.batchStart());
    assertNull(o.checkpoint());
    assertEquals(6, s.position().step());
    assertEquals(72, s.position().samplesSeen());
  }

  @Test
  void approximateWithNoModelLeftIntactFallsBackToTheInitialState() throws Exception {
    CoordinatorState s = state(Recovery.Mode.APPROXIMATE);
    trainThrough(s, 1);
    s.presence(Set.of(A, B));
    s.requestRecovery(A, CoordinatorState.MODEL_LOST, 0);
    RecoveryPlan o = s.requestRecovery(B, CoordinatorState.MODEL_LOST, 0).orElseThrow();
    assertEquals(RecoveryPlan.Mode.CONSISTENT, o.mode());
    assertNull(o.checkpoint(), "no checkpoint yet: the initial state");
    assertEquals(0, o.nextStep());
    assertEquals(0, s.position().samplesSeen());
  }

  @Test
  void aMemberThatMissesItsSyncByTheTimeoutIsDeclaredFailed() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 4);
    sync(s, A, 5);
    sync(s, B, 5);
    now.addAndGet(2 * S);
    s.tick(now.get());
    assertFalse(s.recoveryPending(), "2 s is within the sync timeout");
    now.addAndGet(1);
    s.tick(now.get());
    assertTrue(s.recoveryPending());
    assertEquals(Set.of(C), s.fenced().keySet());
  }

  @Test
  void theFirstStepsOfARingGetMoreTime() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    sync(s, A, 0);
    sync(s, B, 0);
    now.addAndGet(5 * S);
    s.tick(now.get());
    assertFalse(s.recoveryPending(), "step 0 gets three times the sync timeout");
    now.addAndGet(S + 1);
    s.tick(now.get());
    assertEquals(Set.of(C), s.fenced().keySet());
  }

  @Test
  void aMemberSilentWhileTheOthersAskForRecoveryIsDeclaredFailed() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 4);
    // C hangs with its sockets open: A and B time out in the all-reduce and ask.
    assertEquals(Optional.empty(), s.requestRecovery(A, 4, 60));
    now.addAndGet(2 * S + 1);
    RecoveryPlan o = s.requestRecovery(B, 4, 60).orElseThrow();
    assertEquals(List.of(C), o.failed());
    assertEquals(0, o.nextStep(), "no checkpoint: back to the start");
  }

  @Test
  void aWorkerThatFinishedOrTheLeaderItselfIsNotFailedWhenItsNodeGoes() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    s.presence(Set.of(B, C));
    assertFalse(s.recoveryPending(), "the leader never declares itself failed");
    trainThrough(s, 9);
    assertEquals(Phase.FINISHING, s.phase());
    s.presence(Set.of(A));
    assertFalse(s.recoveryPending(), "B and C reported the job's last step and closed their clients");
    assertEquals(Phase.FINISHING, s.phase());
  }
}
