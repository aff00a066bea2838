package org.edl.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.junit.jupiter.api.Test;

/** When a job counts as over a fault, from the AM's reports alone. */
class FaultRecoveryTest {
  private static final String A = "c_01_000002";
  private static final String B = "c_01_000003";
  private static final String C = "c_01_000004";
  private static final String D = "c_01_000005";
  private static final String REPLACEMENT = "c_01_000006";
  private static final String ATTEMPT_1 = "appattempt_1_0001_000001";
  private static final String ATTEMPT_2 = "appattempt_1_0001_000002";

  private static FaultRecovery.Observation at(double seconds, long step, int workers, List<String> containers) {
    return at(seconds, step, workers, containers, ATTEMPT_1);
  }

  private static FaultRecovery.Observation at(double seconds, long step, int workers, List<String> containers,
      String attempt) {
    return at(seconds, step, workers, containers, attempt, 0);
  }

  /** {@code failures}: what the AM's diagnostics say it has counted. */
  private static FaultRecovery.Observation at(double seconds, long step, int workers, List<String> containers,
      String attempt, int failures) {
    JobStatus s = new JobStatus("application_1_0001", JobState.RUNNING, 4, containers);
    s.setProgress(new JobProgress(step, 1000, 1.0, 100, workers));
    if (failures > 0) {
      s.setDiagnostics("worker container x failed; worker failures: " + failures + " of 3 allowed (x on h (exit status 4))");
    }
    return new FaultRecovery.Observation(seconds, s, attempt);
  }

  @Test
  void aKilledWorkerIsRecoveredWhenItsReplacementTrainsPastTheStepOfTheKill() {
    FaultRecovery r = FaultRecovery.applied(new Fault(20, Fault.Kind.KILL_WORKER, 0), B, 20.0,
        at(19.8, 250, 4, List.of(A, B, C, D)));
    // The leader's report from before it noticed: four workers, a step further. Not a recovery.
    assertEquals("not healthy, fault: " + B + " not yet replaced", r.observe(at(20.3, 251, 4, List.of(A, B, C, D))));
    assertEquals("not healthy, step: 200, not past 250", r.observe(at(21.0, 200, 3, List.of(A, C, D))),
        "back to the checkpoint at 200, three workers");
    assertEquals("", r.observe(at(22.0, 210, 3, List.of(A, C, D))), "held back as before: nothing to log");
    r.observe(at(26.0, 230, 4, List.of(A, C, D, REPLACEMENT))); // the replacement joined; not past 250 yet
    assertFalse(r.isRecovered());
    assertEquals("healthy", r.observe(at(29.5, 251, 4, List.of(A, C, D, REPLACEMENT))));
    assertTrue(r.isRecovered());
    assertEquals(9.5, r.recoverySeconds(), 1e-9);
    r.observe(at(40, 400, 4, List.of(A, C, D, REPLACEMENT)));
    r.close("the end");
    r.observe(at(41, 401, 3, List.of(A, C, D)));
    assertEquals(9.5, r.recoverySeconds(), 1e-9, "healthy from 29.5 s until closed; nothing counts after");
    assertTrue(r.describe().endsWith("recovered in 9.5 s"), r.describe());
  }

  @Test
  void aPauseIsOverOnlyOnceTheProcessContinuedAndTheStepMovedOn() {
    FaultRecovery r = FaultRecovery.applied(new Fault(30, Fault.Kind.PAUSE_LEADER, 3), A, 30.0,
        at(29.9, 300, 4, List.of(A, B, C, D)));
    r.observe(at(30.5, 301, 4, List.of(A, B, C, D)));
    assertFalse(r.isRecovered(), "not continued yet");
    r.resumed(33.0);
    r.observe(at(33.2, 301, 4, List.of(A, B, C, D)));
    assertTrue(r.isRecovered());
    assertEquals(3.2, r.recoverySeconds(), 1e-9);
  }

  /**
   * As seen: a leader paused for 25 s, continued, first reports its old ring a step further, then
   * fences the followers that waited for it; the recovery ends only when the ring is whole again
   * with no failure counted since the poll before.
   */
  @Test
  void aHealthyPollFollowedByFencingIsNotTheRecovery() {
    FaultRecovery r = FaultRecovery.applied(new Fault(45, Fault.Kind.PAUSE_LEADER, 25), A, 45.0,
        at(44.9, 700, 4, List.of(A, B, C, D)));
    r.resumed(70);
    r.observe(at(70.3, 701, 4, List.of(A, B, C, D)));
    assertTrue(r.isRecovered(), "healthy, for now");
    assertEquals("not healthy, failures: the AM counted a worker failure (2 now)",
        r.observe(at(71.0, 702, 4, List.of(A, D), ATTEMPT_1, 2)), "B and C fenced: two failures counted");
    assertFalse(r.isRecovered());
    r.observe(at(72.0, 600, 2, List.of(A, D), ATTEMPT_1, 2));
    r.observe(at(80.0, 650, 4, List.of(A, D, REPLACEMENT, "c_01_000007"), ATTEMPT_1, 2));
    r.observe(at(85.0, 702, 4, List.of(A, D, REPLACEMENT, "c_01_000007"), ATTEMPT_1, 2));
    r.close("the next fault");
    assertEquals(40.0, r.recoverySeconds(), 1e-9);
  }

  @Test
  void aKilledAmIsRecoveredWhenANewAttemptReportsTheJobTraining() {
    FaultRecovery r = FaultRecovery.applied(new Fault(25, Fault.Kind.KILL_AM, 0), "c_01_000001", 25.0,
        at(24.9, 100, 4, List.of(A, B, C, D)));
    r.observe(new FaultRecovery.Observation(26, null, ATTEMPT_1));
    r.observe(at(27, 120, 4, List.of(A, B, C, D)));   // the old AM's last answer, a race
    assertFalse(r.isRecovered());
    r.observe(at(41, 240, 4, List.of(A, B, C, D), ATTEMPT_2));
    assertTrue(r.isRecovered());
    assertEquals(16, r.recoverySeconds(), 1e-9);
  }

  @Test
  void aFaultNotAppliedOrNeverGotOverHasNoRecoveryTime() {
    FaultRecovery never = FaultRecovery.applied(new Fault(20, Fault.Kind.KILL_LEADER, 0), A, 20.0,
        at(19.8, 250, 4, List.of(A, B, C, D)));
    never.observe(at(60, 600, 3, List.of(B, C, D)));
    never.close("the next fault");
    assertTrue(Double.isNaN(never.recoverySeconds()));
    assertTrue(never.describe().endsWith("not recovered by the next fault"), never.describe());

    FaultRecovery skipped = FaultRecovery.notApplied(new Fault(50, Fault.Kind.KILL_WORKER, 0), "the job had ended");
    skipped.observe(at(60, 600, 4, List.of(A, B, C, D)));
    assertFalse(skipped.wasApplied());
    assertTrue(Double.isNaN(skipped.recoverySeconds()));
    assertEquals("kill-worker@50.0: not applied (the job had ended)", skipped.describe());
  }
}
