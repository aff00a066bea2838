package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;

/** The leader's side of stop-resume: the stop step, who hears it, what it refuses; a restored start. */
class StopForRestartTest {
  private static final Duration T_A = Duration.ofMillis(50);
  private static final int BATCH = 12;
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static JobSpec spec(int workers, int max, long steps) {
    return CoordTesting.spec(workers, 1, max, steps);
  }

  private CoordinatorState running(int workers, int max, long steps) throws Refused {
    CoordinatorState s = CoordTesting.leading(spec(workers, max, steps), now::get, T_A, "c1");
    for (int i = 1; i <= workers; i++) {
      s.register(worker(i));
    }
    return s;
  }

  private static Member worker(int i) {
    return CoordTesting.member(i);
  }

  /** Every listed worker reports {@code step} with a 10 ms batch; returns the answers. */
  private static List<SyncAnswer> step(CoordinatorState s, long step, String... ids) throws Refused {
    List<SyncAnswer> answers = new ArrayList<>();
    for (String id : ids) {
      answers.add(s.sync(CoordTesting.report(id, step, 1.0, 0.010, BATCH / ids.length, step * BATCH)));
    }
    return answers;
  }

  @Test
  void theStopIsScheduledLikeAScaleInAndEveryMemberHearsItUpToItsStep() throws Exception {
    CoordinatorState s = running(3, 3, 1000);
    step(s, 0, "c1", "c2", "c3");
    step(s, 1, "c1", "c2");
    // t = 1 (reported by c1, c2); k = ceil(50 ms / 10 ms) = 5.
    StopPlan order = s.stopForRestart("hdfs:///ckpt/a");
    assertEquals(6, order.atStep());
    assertEquals("hdfs:///ckpt/a", order.directory());
    assertEquals(1, order.leaderEpoch());
    assertEquals(Phase.STOPPING, s.phase());
    assertEquals(order, s.stopForRestart("hdfs:///ckpt/a"), "asking again changes nothing");

    for (long t = 1; t <= 6; t++) {
      List<SyncAnswer> answers = t == 1 ? step(s, 1, "c3") : step(s, t, "c1", "c2", "c3");
      for (SyncAnswer r : answers) {
        assertEquals(Optional.of(order), r.stop(), "step " + t);
        assertTrue(r.order().isEmpty());
      }
    }
    assertTrue(s.isComplete(6));
    assertEquals(7, s.position().step());
    Refused past = assertThrows(Refused.class, () -> step(s, 7, "c1"));
    assertEquals("step", past.field());

    // The checkpoint is written: the record tells the restarted job's workers to lead afresh.
    s.stopped("hdfs:///ckpt/a/step-7");
    assertEquals("hdfs:///ckpt/a/step-7", s.record().stoppedInto());
  }

  /**
   * A member fails while the job stops for a restart: the survivors recover (back to the start,
   * no checkpoint yet) and the stop still stands, after the same step, for the smaller ring.
   */
  @Test
  void aFailureWhileStoppingIsRecoveredAndTheStopStillStands() throws Exception {
    CoordinatorState s = running(3, 3, 1000);
    s.presence(java.util.Set.of("c1", "c2", "c3"));
    step(s, 0, "c1", "c2", "c3");
    StopPlan order = s.stopForRestart("/ckpt/a");
    assertEquals(5, order.atStep());
    step(s, 1, "c1", "c2", "c3");
    s.presence(java.util.Set.of("c1", "c2"));
    assertEquals(Phase.RECOVERING, s.phase());
    s.requestRecovery("c1", 1, 24);
    RecoveryPlan o = s.requestRecovery("c2", 1, 24).orElseThrow();
    assertEquals(0, o.nextStep());
    assertEquals(Phase.STOPPING, s.phase(), "the order is decided and the job goes on stopping");
    assertEquals(Optional.of(order), s.stopPlan());
    for (long t = 0; t <= order.atStep(); t++) {
      for (SyncAnswer r : step(s, t, "c1", "c2")) {
        assertEquals(Optional.of(order), r.stop());
      }
    }
    assertTrue(s.isComplete(order.atStep()));
    assertEquals("step", assertThrows(Refused.class, () -> step(s, order.atStep() + 1, "c1")).field());
  }

  @Test
  void aStopForAnotherDirectoryWhileOneIsScheduledIsRefused() throws Exception {
    CoordinatorState s = running(2, 2, 1000);
    step(s, 0, "c1", "c2");
    StopPlan order = s.stopForRestart("/ckpt/a");
    Refused e = assertThrows(Refused.class, () -> s.stopForRestart("/ckpt/b"));
    assertEquals("directory", e.field());
    assertEquals("/ckpt/b", e.value());
    assertTrue(e.getMessage().contains("/ckpt/a") && e.getMessage().contains("step " + order.atStep()),
        e.getMessage());
    assertEquals(order, s.stopPlan().orElseThrow());
  }

  @Test
  void noScaleChangeIsTakenOnceAStopIsScheduled() throws Exception {
    CoordinatorState s = running(2, 3, 1000);
    step(s, 0, "c1", "c2");
    s.stopForRestart("/ckpt/a");
    assertThrows(Refused.class, () -> s.register(worker(3)));
    assertThrows(Refused.class, () -> s.leave("c2"));
    assertThrows(Refused.class, () -> s.replace(List.of("c2"), 1));
    assertEquals(2, s.latestRing().size());
    assertEquals(worker(1), s.ring().members().get(0));
    // A retried registration of a member is still answered.
    assertFalse(s.register(worker(1)).pending());
  }

  @Test
  void aStopIsRefusedWhileAScaleChangeIsPendingAndBeforeTheFirstRing() throws Exception {
    CoordinatorState forming = CoordTesting.leading(spec(2, 3, 1000), now::get, T_A, "c1");
    forming.register(worker(1));
    Refused early = assertThrows(Refused.class, () -> forming.stopForRestart("/ckpt/a"));
    assertTrue(early.getMessage().contains("first ring"), early.getMessage());
    assertEquals(Phase.FORMING, forming.phase());

    CoordinatorState s = running(2, 3, 1000);
    step(s, 0, "c1", "c2");
    s.register(worker(3));
    Refused waiting = assertThrows(Refused.class, () -> s.stopForRestart("/ckpt/a"));
    assertTrue(waiting.getMessage().contains("pending") && waiting.getMessage().contains("newcomers"),
        waiting.getMessage());
    s.ready("c3");
    Refused scheduled = assertThrows(Refused.class, () -> s.stopForRestart("/ckpt/a"));
    assertTrue(scheduled.getMessage().contains("at step"), scheduled.getMessage());
    assertTrue(s.stopPlan().isEmpty(), "nothing changed");
    assertEquals(Phase.CHANGING, s.phase());
  }

  @Test
  void nearTheEndTheStopIsTheLastStepAndAtTheEndItIsRefused() throws Exception {
    CoordinatorState s = running(2, 2, 4);
    step(s, 0, "c1", "c2");
    step(s, 1, "c1", "c2");
    assertEquals(3, s.stopForRestart("/ckpt/a").atStep(), "k would pass the last step");

    CoordinatorState ending = running(2, 2, 4);
    for (long t = 0; t < 3; t++) {
      step(ending, t, "c1", "c2");
    }
    step(ending, 3, "c1");
    Refused e = assertThrows(Refused.class, () -> ending.stopForRestart("/ckpt/a"));
    assertTrue(e.getMessage().contains("ends"), e.getMessage());
    assertEquals(Phase.RUNNING, ending.phase());
  }

  @Test
  void aRestoredJobStartsItsFirstRingAtTheCheckpointsStepAndCursor() throws Exception {
    JobPosition start = new JobPosition(40, 0, 40 * BATCH, 3, 0.5);
    CoordinatorState s = CoordinatorState.forming(spec(2, 2, 100), now::get,
        CoordinatorSettings.DEFAULT.withSwitchAllowance(T_A), "c1", 1, new Lifecycle("c1"), Optional.of(start));
    s.register(worker(1));
    assertEquals(40, s.register(worker(2)).position().step(), "registration tells where the ring starts");
    assertEquals(480, s.position().samplesSeen());
    assertEquals(start, s.record().initial(), "recovery without a newer checkpoint goes back here, not to step 0");

    Refused old = assertThrows(Refused.class, () -> step(s, 39, "c1"));
    assertEquals("step", old.field());
    step(s, 40, "c1", "c2");
    assertEquals(41, s.position().step());
    assertEquals(41 * BATCH, s.position().samplesSeen());
    assertEquals(41, s.progress().step());
    // A stop in the restarted job is scheduled from where it stands.
    assertEquals(40 + 5, s.stopForRestart("/ckpt/b").atStep());
  }
}
