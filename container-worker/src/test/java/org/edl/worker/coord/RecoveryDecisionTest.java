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
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.worker.coord.rpc.CoordinatorClient;
import org.edl.worker.coord.rpc.Wire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
  private static final String D = "container_04";
  private static final String E = "container_05";
  private final AtomicLong now = new AtomicLong(1_000 * S);

  private static JobSpec spec(Recovery.Mode mode, int max) {
    return CoordTesting.spec(3, 1, max, 10).toBuilder().recovery(new Recovery(mode, 2_000, 3)).build();
  }

  private CoordinatorState state(Recovery.Mode mode) throws Refused {
    return state(mode, 3, CoordinatorSettings.DEFAULT.withSwitchAllowance(Duration.ofMillis(500)));
  }

  private CoordinatorState state(Recovery.Mode mode, int max, CoordinatorSettings settings) throws Refused {
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
    return s.sync(StepReport.of(id, step, 1.0, 0.01, 4).batchStart(step * 12).epochSize(64).build());
  }

  /** Steps 0..last completed by all three. */
  private static void trainThrough(CoordinatorState s, long last) throws Refused {
    train(s, 0, last);
  }

  /** Steps first..last completed by all three. */
  private static void train(CoordinatorState s, long first, long last) throws Refused {
    for (long step = first; step <= last; step++) {
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

  /** Three members through step 2, and newcomer D ready: its switch is scheduled at step 3. */
  private CoordinatorState newcomerScheduledAtStep3() throws Refused {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT, 4,
        CoordinatorSettings.DEFAULT.withSwitchAllowance(Duration.ofMillis(10)));
    trainThrough(s, 2);
    s.register(member(D));
    s.presence(Set.of(A, B, C, D));
    assertEquals(3, s.ready(D).orElseThrow().atStep());
    return s;
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
        new CoordinatorSettings(Duration.ofMillis(500), EpochGuard.TRUSTING, check));
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
        new CoordinatorSettings(Duration.ofMillis(500), EpochGuard.TRUSTING, ref -> Optional.empty()));
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

  /** Survivors at the same step hold the same model: approximate recovery sends none. */
  @Test
  void approximateRecoveryWithEverySurvivorAtOneStepNamesNoSource() throws Exception {
    CoordinatorState s = state(Recovery.Mode.APPROXIMATE);
    trainThrough(s, 4);
    s.presence(Set.of(A, B));
    s.requestRecovery(B, 4, 60);
    RecoveryPlan o = s.requestRecovery(A, 4, 60).orElseThrow();
    assertEquals(RecoveryPlan.Mode.APPROXIMATE, o.mode());
    assertNull(o.sourceId(), "nothing to send");
    assertEquals(5, o.nextStep());
    assertEquals(60, o.batchStart());
    assertTrue(o.describe().contains("every survivor at the same step keeps its model"), o.describe());
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

  /**
   * A and B reported the job's last step, C died before it: the recovery goes back to the
   * checkpoint and A and B train those steps again. Having reported the last step once, before
   * the recovery, does not make them members that finished: a failure of B while it redoes
   * them is detected (by its presence, or by a missed sync) instead of being waited for forever.
   */
  @Test
  void aMemberThatReportedTheLastStepBeforeARecoveryWentBackIsStillWatched() throws Exception {
    for (boolean byPresence : new boolean[] {true, false}) {
      CoordinatorState s = state(Recovery.Mode.CONSISTENT);
      trainThrough(s, 8);
      s.checkpointWritten(checkpoint("ckpt-5", 5));
      sync(s, A, 9);
      sync(s, B, 9);
      s.presence(Set.of(A, B));
      s.requestRecovery(A, 8, 108);
      assertEquals(5, s.requestRecovery(B, 8, 108).orElseThrow().nextStep());
      for (long step = 5; step <= 7; step++) {
        sync(s, A, step);
        sync(s, B, step);
      }
      assertEquals(8, s.position().step());
      if (byPresence) {
        s.presence(Set.of(A));
      } else {
        sync(s, A, 8);
        now.addAndGet(2 * S + 1);
        s.tick(now.get());
      }
      assertTrue(s.recoveryPending(), "B failed while it redid steps 5..9 (" + (byPresence ? "presence" : "sync") + ")");
      assertEquals(Set.of(B, C), s.fenced().keySet());
    }
  }

  // ------------------------------------------------------------------ heartbeats

  /** A member that sent heartbeats and then none for the sync timeout is declared failed. */
  @Test
  void aMemberWhoseHeartbeatsStopIsDeclaredFailed() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 1);
    s.heartbeat(B, 1);
    s.heartbeat(C, 1);
    now.addAndGet(S);
    s.heartbeat(B, 1);
    now.addAndGet(S);
    s.tick(now.get());
    assertFalse(s.recoveryPending(), "C's last heartbeat is exactly 2 s old");
    now.addAndGet(1);
    s.tick(now.get());
    assertTrue(s.recoveryPending());
    assertEquals(Set.of(C), s.fenced().keySet(), "B's heartbeat is 1 s old; A never sent one and is the leader");
    assertTrue(s.fenced().get(C).contains("no heartbeat"), s.fenced().get(C));
    HeartbeatAnswer b = s.heartbeat(B, 1);
    assertEquals(1, b.abandonRing(), "during the recovery members abandon ring v1");
    assertFalse(b.fenced());
    assertTrue(s.heartbeat(C, 1).fenced(), "a heartbeat of the declared failed tells it to exit");
  }

  /**
   * A leader that did not run for a while (paused, starved) judges nobody by that time: on its
   * first tick after a gap longer than the pause threshold, every member's silence starts again
   * from then; a member that stays silent after that is declared failed as usual.
   */
  @Test
  void aLeaderThatWasPausedJudgesNobodyByTheTimeItDidNotRun() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT, 3, new CoordinatorSettings(Duration.ofMillis(500),
        EpochGuard.TRUSTING, CheckpointCheck.TRUSTING, Duration.ofSeconds(2)));
    trainThrough(s, 1);
    s.heartbeat(B, 1);
    s.heartbeat(C, 1);
    s.tick(now.get());
    now.addAndGet(30 * S);
    s.tick(now.get());
    assertFalse(s.recoveryPending(), "30 s without heartbeats, but the leader itself did not run");
    for (int i = 0; i < 30; i++) {
      now.addAndGet(S / 10);
      s.heartbeat(B, 1);
      s.tick(now.get());
    }
    assertEquals(Set.of(C), s.fenced().keySet(), "C stayed silent for 3 s of the leader's own time");
  }

  /** A member that never sent a heartbeat is judged by its syncs alone, not by heartbeat silence. */
  @Test
  void aMemberThatNeverSentAHeartbeatIsNotSilent() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 1);
    now.addAndGet(60 * S);
    s.tick(now.get());
    assertFalse(s.recoveryPending(), "no open step and no heartbeat: nothing to time");
  }

  /**
   * During a recovery a member that still sends heartbeats is alive (its training thread may be
   * slow to notice): it gets three times the sync timeout to ask before it is declared silent;
   * one without heartbeats gets the sync timeout.
   */
  @Test
  void aHeartbeatingMemberGetsTheGraceInARecovery() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 4);
    assertEquals(Optional.empty(), s.requestRecovery(A, 4, 60));
    for (int i = 1; i <= 5; i++) {
      now.addAndGet(S);
      s.heartbeat(B, 1);
      s.tick(now.get());
    }
    assertEquals(Set.of(C), s.fenced().keySet(), "C, silent, was declared failed after 2 s; B heartbeats");
    assertTrue(s.fenced().get(C).contains("while a recovery was asked for"), s.fenced().get(C));
    assertTrue(s.recoveryPending(), "B has not asked yet");
    RecoveryPlan o = s.requestRecovery(B, 4, 60).orElseThrow();
    assertEquals(List.of(A, B), o.ring().ids(), "B asked after 5 s and is a survivor");

    // The grace ends: a member that heartbeats but never asks is declared failed after 6 s.
    CoordinatorState t = state(Recovery.Mode.CONSISTENT);
    trainThrough(t, 4);
    long asked = now.get();
    t.requestRecovery(A, 4, 60);
    while (now.get() - asked < 6 * S) {
      now.addAndGet(S / 2);
      t.heartbeat(B, 1);
      t.heartbeat(C, 1);
      t.tick(now.get());
    }
    assertTrue(t.fenced().isEmpty(), "exactly 6 s: still within the grace");
    now.addAndGet(1);
    t.tick(now.get());
    assertEquals(Set.of(B, C), t.fenced().keySet());
  }

  /** Three members as {@link #state}, with a sync timeout of 10 s instead of 2 s. */
  private CoordinatorState tenSecondSyncTimeout() throws Refused {
    JobSpec tenSeconds = CoordTesting.spec(3, 1, 3, 10).toBuilder()
        .recovery(new Recovery(Recovery.Mode.CONSISTENT, 10_000, 3)).build();
    CoordinatorState s = CoordinatorState.forming(tenSeconds, now::get,
        CoordinatorSettings.DEFAULT.withSwitchAllowance(Duration.ofMillis(500)), A, 1, new Lifecycle(A),
        Optional.empty());
    for (String id : List.of(A, B, C)) {
      s.register(member(id));
    }
    s.presence(Set.of(A, B, C));
    return s;
  }

  /**
   * Broken links are evidence only with silence: C's process died (its neighbours' links broke,
   * its heartbeats stopped) and is declared failed 2 s after its last heartbeat, not after the
   * 10 s sync timeout; B, whose link A also saw break (B closed its ring to recover), goes on
   * heartbeating and is not declared failed however long it takes to ask.
   */
  @Test
  void aMemberWhoseLinksBrokeAndWhoseHeartbeatsStoppedIsDeclaredFailedBeforeTheSyncTimeout() throws Exception {
    CoordinatorState s = tenSecondSyncTimeout();
    trainThrough(s, 4);
    s.heartbeat(B, 1);
    s.heartbeat(C, 1);
    long cLast = now.get();
    assertEquals(Optional.empty(), s.requestRecovery(A, 4, 60, List.of(C, B)));
    while (now.get() - cLast < 2 * S) {
      now.addAndGet(S / 4);
      s.heartbeat(B, 1);
      s.tick(now.get());
    }
    assertTrue(s.fenced().isEmpty(), "exactly 2 s of silence: not yet");
    now.addAndGet(S / 4);
    s.heartbeat(B, 1);
    s.tick(now.get());
    assertEquals(Set.of(C), s.fenced().keySet());
    assertTrue(s.fenced().get(C).contains("its ring link broke (seen by container_01)"), s.fenced().get(C));
    assertTrue(s.recoveryPending(), "B has not asked yet");
    RecoveryPlan o = s.requestRecovery(B, 4, 60, List.of(C)).orElseThrow();
    assertEquals(List.of(A, B), o.ring().ids());
    assertEquals(List.of(C), o.failed());
  }

  @Test
  void withoutABrokenLinkASilentMemberWaitsForTheSyncTimeout() throws Exception {
    CoordinatorState s = tenSecondSyncTimeout();
    trainThrough(s, 4);
    s.heartbeat(C, 1);
    // A timed out in the all-reduce (C paused with its sockets open): no link broke.
    s.requestRecovery(A, 4, 60, List.of());
    s.requestRecovery(B, 4, 60, List.of());
    now.addAndGet(9 * S);
    s.tick(now.get());
    assertTrue(s.fenced().isEmpty(), "9 s of silence, no broken link: within the sync timeout");
    now.addAndGet(S + 1);
    s.tick(now.get());
    assertEquals(Set.of(C), s.fenced().keySet());
  }

  // ------------------------------------------------------------------ newcomers

  /**
   * The only members lost are newcomers that never trained, and every survivor asks with the
   * same step and cursor: nothing is redone, whatever the job's mode (a checkpoint exists).
   */
  @ParameterizedTest
  @EnumSource(Recovery.Mode.class)
  void losingOnlyUntrainedNewcomersResumesWithoutGoingBack(Recovery.Mode mode) throws Exception {
    CoordinatorState s = state(mode, 5, CoordinatorSettings.DEFAULT.withSwitchAllowance(Duration.ofMillis(10)));
    trainThrough(s, 2);
    s.checkpointWritten(checkpoint("ckpt-1", 1));
    s.register(member(D));
    s.register(member(E));
    s.presence(Set.of(A, B, C, D, E));
    s.ready(D);
    SwitchPlan order = s.ready(E).orElseThrow();
    assertEquals(3, order.atStep(), "k = 1 after step 2");
    train(s, 3, 3);
    assertEquals(List.of(A, B, C, D, E), s.ring().ids());
    // D and E die before their first step on the new ring; the survivors' all-reduce of step 4 fails.
    s.presence(Set.of(A, B, C));
    assertEquals(Set.of(D, E), s.fenced().keySet());
    s.requestRecovery(A, 3, 48);
    s.requestRecovery(B, 3, 48);
    RecoveryPlan o = s.requestRecovery(C, 3, 48).orElseThrow();
    assertEquals(RecoveryPlan.Mode.RESUME, o.mode());
    assertEquals(List.of(D, E), o.failed());
    assertEquals(List.of(A, B, C), o.ring().ids());
    assertEquals(3, o.version());
    assertEquals(4, o.nextStep());
    assertEquals(48, o.batchStart());
    assertNull(o.checkpoint(), "every survivor keeps its model");
    assertNull(o.sourceId());
    assertEquals(4, s.position().step(), "nothing is redone");
    assertEquals(48, s.position().samplesSeen());
    assertEquals(Phase.RUNNING, s.phase());
  }

  /**
   * A newcomer whose switch is scheduled is not dropped when its session ends: the switch takes
   * place, and at once it is declared failed; it never trained, so nothing is redone.
   */
  @Test
  void aNewcomerLostAfterItsSwitchWasScheduledIsRecoveredFromByResuming() throws Exception {
    CoordinatorState s = newcomerScheduledAtStep3();
    s.presence(Set.of(A, B, C));
    assertEquals(Phase.CHANGING, s.phase(), "scheduled: not dropped, not failed yet (not in the ring)");
    assertTrue(s.fenced().isEmpty());
    sync(s, A, 3);
    sync(s, B, 3);
    assertEquals(s.scheduled().orElseThrow(), sync(s, C, 3).order().orElseThrow(),
        "the last report of the switch step still learns the switch");
    assertEquals(Phase.RECOVERING, s.phase(), "switched, and D declared failed");
    assertEquals(Set.of(D), s.fenced().keySet());
    // A newcomer that still runs (it only lost its session) hears it at its next ask, and exits.
    for (Refused r : List.of(assertThrows(Refused.class, () -> s.ready(D)),
        assertThrows(Refused.class, () -> s.orderFor(D)))) {
      assertEquals(Refused.Kind.FENCED, r.kind());
      assertTrue(CoordinatorClient.isFenced(Wire.error(r)), r.getMessage());
    }
    s.requestRecovery(A, 3, 48);
    s.requestRecovery(B, 3, 48);
    RecoveryPlan o = s.requestRecovery(C, 3, 48).orElseThrow();
    assertEquals(RecoveryPlan.Mode.RESUME, o.mode());
    assertEquals(4, o.nextStep());
  }

  /**
   * A newcomer lost right after the switch that took it in, before its first heartbeat (its host
   * cut): its silence counts from the switch, so it is declared failed after the sync timeout
   * even though nobody can open its first step (a two-member ring's leader waits for it inside the
   * all-reduce) and its ZooKeeper session has not ended yet.
   */
  @Test
  void aNewcomerSilentFromItsSwitchOnIsDeclaredFailedAfterTheSyncTimeout() throws Exception {
    CoordinatorState s = newcomerScheduledAtStep3();
    s.heartbeat(B, 1);
    s.heartbeat(C, 1);
    train(s, 3, 3);
    assertEquals(List.of(A, B, C, D), s.ring().ids(), "switched after step 3");
    now.addAndGet(2 * S);
    s.heartbeat(B, 1);
    s.heartbeat(C, 1);
    s.tick(now.get());
    assertFalse(s.recoveryPending(), "exactly the sync timeout since its switch");
    now.addAndGet(1);
    s.tick(now.get());
    assertTrue(s.recoveryPending());
    assertEquals(Set.of(D), s.fenced().keySet());
    assertTrue(s.fenced().get(D).contains("no heartbeat"), s.fenced().get(D));
  }

  /**
   * A member fails while a switch that adds a newcomer is scheduled: the switch cannot happen on
   * the old ring; after the recovery it is scheduled again, on the survivors' ring.
   */
  @Test
  void aSwitchScheduledWhenAMemberFailsIsScheduledAgainAfterTheRecovery() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT, 4,
        CoordinatorSettings.DEFAULT.withSwitchAllowance(Duration.ofMillis(30)));
    trainThrough(s, 2);
    s.register(member(D));
    s.presence(Set.of(A, B, C, D));
    SwitchPlan first = s.ready(D).orElseThrow();
    assertEquals(5, first.atStep());
    assertEquals(2, first.version());
    s.presence(Set.of(A, B, D));
    assertEquals(Phase.RECOVERING, s.phase());
    assertTrue(s.scheduled().isPresent(), "still the old ring's until the order is decided");
    s.requestRecovery(A, 2, 36);
    s.requestRecovery(B, 2, 36).orElseThrow();
    SwitchPlan again = s.orderFor(D).orElseThrow(() -> new AssertionError("D waits for a switch again"));
    assertEquals(Phase.CHANGING, s.phase());
    assertEquals(List.of(A, B, D), again.next().ids());
    assertEquals(3, again.version(), "after recovery v2");
    assertEquals(List.of(D), again.joiners());
    assertEquals(A, again.broadcasterId());
  }

  /** A survivor that disagrees (it lost its model) makes it an ordinary recovery. */
  @Test
  void aResumeNeedsEverySurvivorAtTheSameStep() throws Exception {
    CoordinatorState s = newcomerScheduledAtStep3();
    train(s, 3, 3);
    assertEquals(4, s.ring().size());
    s.presence(Set.of(A, B, C));
    s.requestRecovery(A, 3, 48);
    s.requestRecovery(B, 3, 48);
    RecoveryPlan o = s.requestRecovery(C, CoordinatorState.MODEL_LOST, 48).orElseThrow();
    assertEquals(RecoveryPlan.Mode.CONSISTENT, o.mode());
    assertEquals(0, o.nextStep());
  }

  /** A newcomer gone before its switch was scheduled is dropped from the change, not recovered from. */
  @Test
  void aNewcomerLostBeforeItsSwitchIsDroppedFromTheChange() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT, 5, CoordinatorSettings.DEFAULT);
    trainThrough(s, 1);
    s.register(member(D));
    s.register(member(E));
    s.presence(Set.of(A, B, C, D, E));
    s.ready(D);
    assertTrue(s.scheduled().isEmpty(), "E is not ready");
    s.presence(Set.of(A, B, C, D));
    assertFalse(s.recoveryPending());
    assertTrue(s.fenced().isEmpty());
    assertTrue(s.events().stream().anyMatch(e -> e.contains(E) && e.contains("dropped from the change")),
        s.events().toString());
    SwitchPlan order = s.scheduled().orElseThrow(() -> new AssertionError("D waited only for E"));
    assertEquals(List.of(D), order.joiners());
    assertEquals(List.of(A, B, C, D), order.next().ids());
    assertEquals(4, s.registeredCount());
    assertEquals(Refused.Kind.INVALID, assertThrows(Refused.class, () -> s.ready(E)).kind());

    // The only newcomer gone: no change is left.
    CoordinatorState t = state(Recovery.Mode.CONSISTENT, 4, CoordinatorSettings.DEFAULT);
    t.register(member(D));
    t.presence(Set.of(A, B, C, D));
    assertEquals(2, t.latestRing().version());
    t.presence(Set.of(A, B, C));
    assertEquals(t.ring(), t.latestRing());
    assertEquals(Phase.RUNNING, t.phase());
  }

  // ------------------------------------------------------------------ registration in a recovery

  @Test
  void aRegistrationDuringARecoveryIsToldToComeBackAndCountsForNothing() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT, 3, CoordinatorSettings.DEFAULT);
    trainThrough(s, 1);
    s.presence(Set.of(A, B));
    assertEquals(Phase.RECOVERING, s.phase());
    Admission a = s.register(member(D));
    assertTrue(a.retryAfterMs() > 0);
    assertTrue(a.pending());
    assertEquals(3, s.registeredCount(), "nothing registered");
    assertEquals(1, s.latestRing().version());
    assertEquals(Phase.RECOVERING, s.phase());
    assertFalse(s.register(member(B)).retryAfterMs() > 0, "a member's retried registration is answered");

    s.requestRecovery(A, 1, 24);
    s.requestRecovery(B, 1, 24).orElseThrow();
    // max-workers=3 with [A, B]: had D's first call counted, E would exceed it.
    Admission e = s.register(member(E));
    assertEquals(0, e.retryAfterMs());
    assertTrue(e.pending());
    assertEquals(List.of(A, B, E), e.ring().ids());
  }

  /**
   * max-workers counts a ring member declared failed as gone: the replacement YARN starts for it
   * is not refused while the failed member is still in the running ring (it is asked to come back
   * while the recovery is decided, and admitted after).
   */
  @Test
  void aReplacementIsNotRefusedAtMaxWorkersWhileTheFailedMemberIsStillInTheRing() throws Exception {
    CoordinatorState s = state(Recovery.Mode.CONSISTENT);
    trainThrough(s, 1);
    s.presence(Set.of(A, B));
    assertEquals(List.of(A, B, C), s.ring().ids(), "C is still in ring v1");
    Admission early = s.register(member(D));
    assertTrue(early.retryAfterMs() > 0, "not refused for max-workers=3");
    s.requestRecovery(A, 1, 24);
    s.requestRecovery(B, 1, 24).orElseThrow();
    Admission admitted = s.register(member(D));
    assertEquals(0, admitted.retryAfterMs());
    assertEquals(List.of(A, B, D), admitted.ring().ids());
    assertEquals(3, admitted.ring().version());
  }
}
