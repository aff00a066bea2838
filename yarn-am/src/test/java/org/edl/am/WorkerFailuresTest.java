package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.am.WorkerFailures.Circumstances;
import org.edl.am.WorkerFailures.Failure;
import org.edl.am.WorkerFailures.Response;
import org.junit.jupiter.api.Test;

class WorkerFailuresTest {
  private static final Circumstances STEADY = new Circumstances(false, false, null, false, true);

  @Test
  void eachFailureUpToTheLimitIsReplacedAndTheNextFailsTheJob() {
    WorkerFailures failures = new WorkerFailures(2);
    assertEquals(Response.REPLACE, failures.judge(killed("c1"), STEADY).response());
    assertEquals(Response.REPLACE, failures.judge(killed("c2"), STEADY).response());
    WorkerFailures.Verdict third = failures.judge(killed("c3"), STEADY);
    assertEquals(Response.FAIL, third.response());
    assertTrue(third.reason().contains("max-worker-failures=2"), third.reason());
    assertEquals(3, failures.count());
    assertTrue(failures.summary().startsWith("worker failures: 3 of 2 allowed (c1 on h1 (exit status 137 (killed))"),
        failures.summary());
    assertEquals(Response.FAIL, new WorkerFailures(0).judge(killed("c1"), STEADY).response());
  }

  @Test
  void finishedTrainingOrNoModelLeftFailsTheJobWithinTheLimit() {
    assertEquals(Response.FAIL, new WorkerFailures(3).judge(killed("c1"),
        new Circumstances(true, false, null, false, true)).response());
    WorkerFailures.Verdict alone = new WorkerFailures(3).judge(killed("c1"),
        new Circumstances(false, false, null, false, false));
    assertEquals(Response.FAIL, alone.response());
    assertTrue(alone.reason().contains("no running worker"), alone.reason());
  }

  @Test
  void duringAChangeALeaverHasLeftAStopperHasStoppedAMigrationNewcomerIsReplacedOnItsHost() {
    WorkerFailures failures = new WorkerFailures(5);
    assertEquals(Response.LEFT, failures.judge(killed("c1"),
        new Circumstances(false, false, WorkerFleet.Departure.SCALE_IN, false, true)).response());
    assertEquals(Response.LEFT, failures.judge(killed("c2"),
        new Circumstances(false, false, WorkerFleet.Departure.MIGRATION, false, true)).response());
    assertEquals(Response.STOPPED, failures.judge(killed("c3"),
        new Circumstances(false, false, WorkerFleet.Departure.RESTART, false, true)).response());
    assertEquals(Response.REPLACE_ON_MIGRATION_HOST, failures.judge(killed("c4"),
        new Circumstances(false, true, null, true, true)).response());
    assertEquals(4, failures.count());
  }

  @Test
  void aNewcomerThatNeverJoinedBeforeTrainingFinishedIsNotCounted() {
    WorkerFailures failures = new WorkerFailures(0);
    assertEquals(Response.IGNORE, failures.judge(killed("c1"),
        new Circumstances(true, true, null, false, true)).response());
    assertEquals(0, failures.count());
    assertEquals("", failures.summary());
  }

  @Test
  void exitStatusesAreNamed() {
    assertEquals("-100 (ABORTED: released, or its node was lost)", ExitStatusText.of(-100));
    assertEquals("-102 (PREEMPTED)", ExitStatusText.of(-102));
    assertEquals("137 (killed)", ExitStatusText.of(137));
    assertEquals("42", ExitStatusText.of(42));
  }

  private static Failure killed(String id) {
    return Failure.exited(new WorkerContainer(id, "h1"), 137);
  }
}
