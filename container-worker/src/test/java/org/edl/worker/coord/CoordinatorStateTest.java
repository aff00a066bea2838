package org.edl.worker.coord;

import static org.edl.worker.coord.CoordTesting.member;
import static org.edl.worker.coord.CoordTesting.report;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;

class CoordinatorStateTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final CoordinatorState state = new CoordinatorState(spec(3), now::get);

  /** {@code workers} workers (max as many), 10 steps, global batch 12. */
  static JobSpec spec(int workers) {
    return CoordTesting.spec(workers, 1, workers, 10);
  }

  static Member worker(String id, int port) {
    return member(id, port);
  }

  @Test
  void aFreshStateLeadsWithEpochOneAndFormsTheFirstRing() throws Exception {
    assertEquals(Phase.FORMING, state.phase());
    assertEquals(1, state.leaderEpoch());
    assertEquals(MemberRing.NONE, state.ring());
    registerAll();
    assertEquals(Phase.RUNNING, state.phase(), "ring v1 formed");
    assertEquals(1, state.record().leaderEpoch());
    assertFalse(state.record().departed());
  }

  @Test
  void publishesVersionOneOnlyWhenTheExpectedWorkersRegistered() throws Exception {
    assertEquals(0, state.register(worker("container_03", 7003)).ring().version());
    assertEquals(0, state.register(worker("container_01", 7001)).ring().size());
    assertEquals(Phase.FORMING, state.phase());
    MemberRing t = state.register(worker("container_02", 7002)).ring();
    assertEquals(1, t.version());
    assertEquals(List.of("container_01", "container_02", "container_03"), t.ids(),
        "ring ordered by container id, not by arrival");
  }

  @Test
  void orderDoesNotDependOnArrival() throws Exception {
    CoordinatorState other = new CoordinatorState(spec(3), now::get);
    for (String id : List.of("container_02", "container_03", "container_01")) {
      other.register(worker(id, 7000 + id.charAt(id.length() - 1)));
    }
    for (String id : List.of("container_03", "container_01", "container_02")) {
      state.register(worker(id, 7000 + id.charAt(id.length() - 1)));
    }
    assertEquals(other.ring(), state.ring());
  }

  @Test
  void aRepeatedRegistrationIsHarmlessButAnotherAddressOrAWorkerBeyondMaxIsRefused() throws Exception {
    state.register(worker("container_01", 7001));
    state.register(worker("container_01", 7001));
    assertEquals(1, state.registeredCount());

    Refused moved = assertThrows(Refused.class, () -> state.register(worker("container_01", 7999)));
    assertEquals("workerId", moved.field());
    assertEquals(Refused.Kind.INVALID, moved.kind());
    assertTrue(moved.getMessage().contains("already registered at 127.0.0.1:7001"), moved.getMessage());

    state.register(worker("container_02", 7002));
    state.register(worker("container_03", 7003));
    assertEquals(1, state.register(worker("container_03", 7003)).ring().version());
    Refused extra = assertThrows(Refused.class, () -> state.register(worker("container_04", 7004)));
    assertTrue(extra.getMessage().contains("max-workers=3"), extra.getMessage());
    assertEquals(1, state.ring().version());
  }

  @Test
  void badRegistrationsNameTheField() {
    assertEquals("dataPort", assertThrows(Refused.class,
        () -> state.register(worker("container_01", 0))).field());
    assertEquals("workerId", assertThrows(Refused.class,
        () -> state.register(worker(" ", 7001))).field());
  }

  @Test
  void aStepCompletesWhenEveryMemberReportedAndItsLossIsSampleWeighted() throws Exception {
    registerAll();
    assertThrows(Refused.class, () -> state.sync(report("stranger", 0, 1, 0.1, 4)));

    state.sync(report("container_01", 0, 1.0, 0.1, 4));
    state.sync(report("container_02", 0, 2.0, 0.1, 4));
    assertFalse(state.isComplete(0));
    state.sync(report("container_02", 0, 2.0, 0.1, 4)); // retried report counts once
    assertFalse(state.isComplete(0));
    state.sync(report("container_03", 0, 4.5, 0.1, 2));
    assertTrue(state.isComplete(0));
    // (1*4 + 2*4 + 4.5*2) / 10
    assertEquals(2.1, state.position().lastLoss(), 1e-12);
    assertEquals(1, state.position().step());
    assertEquals(10, state.position().samplesSeen());
    assertEquals(2.1, state.firstLoss().orElseThrow(), 1e-12);

    Refused old = assertThrows(Refused.class, () -> state.sync(report("container_01", 0, 1, 0.1, 4)));
    assertEquals("step", old.field());
  }

  @Test
  void aLaterStepWaitsForTheEarlierOneAndRatesUseTheInjectedClock() throws Exception {
    registerAll();
    for (String id : List.of("container_01", "container_02", "container_03")) {
      state.sync(report(id, 1, 1.0, 0.1, 4)); // step 1 before step 0 is in
    }
    assertFalse(state.isComplete(1));
    state.sync(report("container_01", 0, 3.0, 0.1, 4));
    state.sync(report("container_02", 0, 3.0, 0.1, 4));
    state.sync(report("container_03", 0, 3.0, 0.1, 4));
    assertTrue(state.isComplete(1));
    assertEquals(1.0, state.position().lastLoss(), 1e-12);
    assertEquals(3.0, state.firstLoss().orElseThrow(), 1e-12);

    // Steps 0 and 1 completed at the same instant; step 2 half a second later: 24 samples
    // since the first completion, in 0.5 s.
    now.addAndGet(500_000_000L);
    for (String id : List.of("container_01", "container_02", "container_03")) {
      state.sync(report(id, 2, 0.5, 0.1, 4));
    }
    assertEquals(48.0, state.recentSamplesPerSecond(), 1e-9);
    assertEquals(48.0, state.overallSamplesPerSecond(), 1e-9);
    LeaderProgress p = state.progress();
    assertEquals(3, p.step());
    assertEquals(10, p.totalSteps());
    assertEquals(0.5, p.loss(), 1e-12);
    assertEquals(3, p.workers());
    assertEquals(3.0, p.firstLoss(), 1e-12);
    assertEquals(Phase.RUNNING, p.phase());
    assertEquals(1, p.leaderEpoch());
  }

  /**
   * The last step completes: FINISHING (members wait, newcomers are told to come back), the
   * output written: FINISHED (members are told they are done, and with what).
   */
  @Test
  void theLastStepLeadsToFinishingAndTheWrittenOutputToFinished() throws Exception {
    registerAll();
    assertEquals("phase", assertThrows(Refused.class,
        () -> state.finished(new JobOutput("/m", "/x"))).field(), "no output before the last step");
    for (long step = 0; step < 10; step++) {
      for (String id : List.of("container_01", "container_02", "container_03")) {
        state.sync(report(id, step, 1.0, 0.1, 4));
      }
    }
    assertEquals(Phase.FINISHING, state.phase());
    FinishAnswer waiting = state.finishStatus("container_02");
    assertFalse(waiting.done());
    assertFalse(waiting.recover());
    assertNull(waiting.output());
    Admission late = state.register(worker("container_04", 7004));
    assertTrue(late.retryAfterMs() > 0, "not refused: told to come back");
    assertEquals(3, state.registeredCount());
    assertThrows(Refused.class, () -> state.leave("container_02"), "the job has trained its last step");

    JobOutput out = new JobOutput("hdfs:///out/model", "hdfs:///out/metrics.json");
    state.finished(out);
    assertEquals(Phase.FINISHED, state.phase());
    assertEquals(out, state.record().output());
    assertFalse(state.everyoneTold());
    FinishAnswer done = state.finishStatus("container_02");
    assertTrue(done.done());
    assertFalse(done.recover());
    assertEquals(out, done.output());
    assertFalse(state.everyoneTold(), "container_01 and container_03 have not asked yet");
    state.finishStatus("container_01");
    state.finishStatus("container_03");
    assertTrue(state.everyoneTold());
    assertThrows(Refused.class, () -> state.finished(out), "written once");
  }

  /** A member that follows a newer leader epoch shows that this leadership is over. */
  @Test
  void aMemberEpochNewerThanTheLeadersFencesIt() throws Exception {
    registerAll();
    HeartbeatAnswer a = state.heartbeat("container_02", 1);
    assertEquals(1, a.leaderEpoch());
    assertEquals(-1, a.abandonRing());
    assertFalse(a.fenced());
    Refused r = assertThrows(Refused.class, () -> state.heartbeat("container_02", 2));
    assertEquals(Refused.Kind.NOT_LEADER, r.kind());
    assertEquals(Phase.FENCED, state.phase());
    assertEquals(Refused.Kind.NOT_LEADER, assertThrows(Refused.class,
        () -> state.sync(report("container_01", 0, 1.0, 0.1, 4))).kind(), "it never acts again");
    assertEquals(Refused.Kind.NOT_LEADER, assertThrows(Refused.class,
        () -> state.register(worker("container_04", 7004))).kind());

    CoordinatorState other = new CoordinatorState(spec(3), now::get);
    for (String id : List.of("container_01", "container_02", "container_03")) {
      other.register(worker(id, 7000 + id.charAt(id.length() - 1)));
    }
    StepReport newer = StepReport.of("container_01", 0, 1.0, 0.1, 4).leaderEpoch(7).build();
    assertEquals(Refused.Kind.NOT_LEADER, assertThrows(Refused.class, () -> other.sync(newer)).kind());
    assertEquals(Phase.FENCED, other.phase());
    assertFalse(other.isComplete(0), "the report was not counted");
  }

  /** A leader whose epoch is not the newest any more (a successor exists) decides nothing. */
  @Test
  void aLeaderWhoseEpochIsNotCurrentFencesItselfInsteadOfDeciding() throws Exception {
    AtomicBoolean current = new AtomicBoolean(true);
    CoordinatorState s = CoordinatorState.forming(spec(3), now::get, new CoordinatorSettings(
        Duration.ofMillis(50), current::get, CheckpointCheck.TRUSTING), "container_01", 4,
        new Lifecycle("container_01"), Optional.empty());
    registerAll(s);
    s.presence(java.util.Set.of("container_01", "container_02", "container_03"));
    current.set(false);
    s.presence(java.util.Set.of("container_01", "container_02"));
    assertEquals(Phase.FENCED, s.phase(), "fenced, not recovering");
    assertTrue(s.fenced().isEmpty(), "nobody declared failed by a leadership that is over");
  }

  private void registerAll() throws Refused {
    registerAll(state);
  }

  private static void registerAll(CoordinatorState s) throws Refused {
    s.register(worker("container_01", 7001));
    s.register(worker("container_02", 7002));
    s.register(worker("container_03", 7003));
  }
}
