package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.edl.am.ExitVerdict.Kind;
import org.edl.am.FleetChange.Departure;
import org.edl.am.WorkerFailures.Failure;
import org.junit.jupiter.api.Test;

/**
 * Counting failures against the limit, with the failure rules of {@link ExitRules} applied as the
 * fleet applies them ({@link #judge}); the rules' full table is {@link ExitRulesTest}.
 */
class WorkerFailuresTest {
  private static final Circumstances STEADY = new Circumstances(false, false, null, false, true);

  /**
   * What the fleet knows of a failed container, in this test's words.
   *
   * @param trainingFinished a worker has exited 0 (the job is FINISHING)
   * @param joining          a newcomer the leader has not reported in the ring
   * @param modelSurvives    another ring member runs
   */
  private record Circumstances(boolean trainingFinished, boolean joining, Departure departure,
      boolean migrationNewcomer, boolean modelSurvives) {}

  /** As the fleet does: the verdict on a container killed (137), and its failure counted when it is one. */
  private static ExitVerdict judge(WorkerFailures failures, Failure failure, Circumstances c) {
    ContainerFacts facts = new ContainerFacts(failure.containerId(), true, c.departure(), c.joining(),
        c.migrationNewcomer(), false, failures.counted(failure.containerId()));
    FleetFacts fleet = new FleetFacts(c.trainingFinished() ? WorkerFleet.Phase.FINISHING : WorkerFleet.Phase.RUNNING,
        failures.count(), failures.allowed(), false, false, c.modelSurvives() ? Set.of("other") : Set.of(), Set.of(),
        Optional.empty());
    ExitVerdict verdict = ExitRules.judge(ContainerExit.exited(137, "killed"), facts, fleet);
    if (verdict.failure()) {
      failures.record(failure);
    }
    return verdict;
  }

  @Test
  void eachFailureUpToTheLimitIsReplacedAndTheNextFailsTheJob() {
    WorkerFailures failures = new WorkerFailures(2);
    assertEquals(Kind.FAILURE_REPLACE, judge(failures, killed("c1"), STEADY).kind());
    assertEquals(Kind.FAILURE_REPLACE, judge(failures, killed("c2"), STEADY).kind());
    ExitVerdict third = judge(failures, killed("c3"), STEADY);
    assertEquals(Kind.FAILURE_FATAL, third.kind());
    assertTrue(third.reason().contains("max-worker-failures=2"), third.reason());
    assertEquals(3, failures.count());
    assertTrue(failures.summary().startsWith("worker failures: 3 of 2 allowed (c1 on h1 (exit status 137 (killed))"),
        failures.summary());
    assertEquals(Kind.FAILURE_FATAL, judge(new WorkerFailures(0), killed("c1"), STEADY).kind());
  }

  /**
   * After training finished a failure is counted and nothing more (the job's output decides its
   * end); while training, losing the last ring member fails the job however many failures remain.
   */
  @Test
  void afterTrainingAFailureIsOnlyCountedAndWithNoModelLeftItFailsTheJob() {
    WorkerFailures finished = new WorkerFailures(3);
    assertEquals(Kind.AFTER_TRAINING, judge(finished, killed("c1"),
        new Circumstances(true, false, null, false, true)).kind());
    assertEquals(1, finished.count());
    ExitVerdict alone = judge(new WorkerFailures(3), killed("c1"),
        new Circumstances(false, false, null, false, false));
    assertEquals(Kind.FAILURE_FATAL, alone.kind());
    assertTrue(alone.reason().contains("no running worker"), alone.reason());
  }

  @Test
  void duringAChangeALeaverHasLeftAStopperHasStoppedAMigrationNewcomerIsReplacedOnItsHost() {
    WorkerFailures failures = new WorkerFailures(5);
    assertEquals(Kind.LEFT, judge(failures, killed("c1"),
        new Circumstances(false, false, Departure.SCALE_IN, false, true)).kind());
    assertEquals(Kind.LEFT, judge(failures, killed("c2"),
        new Circumstances(false, false, Departure.MIGRATION, false, true)).kind());
    assertEquals(Kind.STOPPED_FOR_RESTART, judge(failures, killed("c3"),
        new Circumstances(false, false, Departure.RESTART, false, true)).kind());
    assertEquals(Kind.FAILURE_REPLACE_ON_HOST, judge(failures, killed("c4"),
        new Circumstances(false, true, null, true, true)).kind());
    assertEquals(4, failures.count());
  }

  @Test
  void aNewcomerThatNeverJoinedBeforeTrainingFinishedIsNotCounted() {
    WorkerFailures failures = new WorkerFailures(0);
    assertEquals(Kind.AFTER_TRAINING, judge(failures, killed("c1"),
        new Circumstances(true, true, null, false, true)).kind());
    assertEquals(0, failures.count());
    assertEquals("", failures.summary());
  }

  @Test
  void aContainerIsCountedOnceHoweverOftenItsEndIsReported() {
    WorkerFailures failures = new WorkerFailures(1);
    assertTrue(failures.record(killed("c1")));
    assertFalse(failures.record(killed("c1")), "reported twice");
    assertFalse(failures.record(Failure.notStarted(new WorkerContainer("c1", "h1"),
        new java.io.IOException("node manager unreachable"))), "could not start, then completed");
    assertEquals(1, failures.count());
    assertTrue(failures.counted("c1"));
    // Judged again, it is still within the limit of 1: its failure is not counted twice.
    assertEquals(Kind.FAILURE_REPLACE, judge(failures, killed("c1"), STEADY).kind());
    assertEquals(1, failures.count());
    assertTrue(failures.summary().startsWith("worker failures: 1 of 1 allowed"), failures.summary());
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
