package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.edl.job.WorkerEnv;
import org.edl.thrift.EdlError;
import org.edl.job.ScaleMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the fleet does when worker containers fail ({@code --max-worker-failures}). */
class WorkerFleetFailureTest {
  private static final WorkerResource RESOURCE = new WorkerResource(1024, 1, 2);
  /** The job's output verifies: these tests are about the containers. */
  private static final OutputCheck VERIFIED = Optional::empty;
  private static final String KILLED = "Container killed on request. Exit code is 137";

  private final List<Integer> requested = new ArrayList<>();
  private final Map<String, WorkerLaunch> launched = new LinkedHashMap<>();
  private final List<String> released = new ArrayList<>();
  private final List<String> pinnedTo = new ArrayList<>();
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
  private final List<String> stops = new ArrayList<>();
  private JobStopper.Answer stopAnswer;
  private TestingContainerDriver driver;

  @BeforeEach
  void driver() {
    driver = new TestingContainerDriver();
    driver.onRequest = (n, r) -> {
      assertEquals(RESOURCE, r);
      requested.add(n);
    };
    driver.onLaunch = (c, l) -> launched.put(c.id(), l);
    driver.onRelease = released::add;
    driver.onRequestOn = (n, r, host) -> {
      assertEquals(RESOURCE, r);
      for (int i = 0; i < n; i++) {
        pinnedTo.add(host);
      }
    };
  }

  @Test
  void aKilledWorkerIsReplacedOnceAndTheJobGoesOnWithItsTarget() throws Exception {
    WorkerFleet fleet = running(3, 1, 3, 2);
    fleet.onContainerCompleted("c2", 137, KILLED);

    assertFalse(fleet.outcome().isDone());
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertEquals(3, fleet.status().targetWorkers(), "the target stays");
    assertEquals(List.of(1), requested, "one replacement");
    String status = fleet.status().diagnostics();
    assertTrue(status.contains("c2 on h1 (exit status 137 (killed)) failed"), status);
    assertTrue(status.contains("requesting a replacement (failure 1 of 2 allowed)"), status);
    assertTrue(status.contains("worker failures: 1 of 2 allowed"), status);
    assertTrue(fleet.status().scaling(), "until the leader reports the ring whole again");

    fleet.onContainersAllocated(List.of(c("c4", "h1")));
    assertEquals(List.of("c4"), List.copyOf(launched.keySet()));
    assertEquals(List.of(2, 3), launched.get("c4").gpuIndices(), "c2's devices were freed, c1 keeps 0,1");
    assertEquals(Map.of(), launched.get("c4").env(), "a scale-out newcomer: the ring hands it the model");
    fleet.onContainerStarted("c4");
    fleet.onProgressReport(2);
    assertTrue(fleet.status().scaling());
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());
    assertEquals(List.of("c1", "c3", "c4"), fleet.status().containers());

    // The failure stays in the status after later events; the job still ends as usual.
    fleet.scaleIn(1, List.of(), ScaleMode.EDL);
    assertTrue(fleet.status().diagnostics().contains("worker failures: 1 of 2"), fleet.status().diagnostics());
    for (String id : List.of("c4", "c1", "c3")) {
      fleet.onContainerCompleted(id, 0, "");
    }
    assertTrue(fleet.outcome().getNow(null).succeeded());
    assertEquals(List.of(1), requested);
    assertTrue(released.isEmpty());
  }

  @Test
  void aWorkerDeclaredFailedOnANodeThatIsGoneIsCountedOnceAndReplacedWithoutWaitingForTheNodeExpiry() {
    List<String> probed = new ArrayList<>();
    List<String> avoided = new ArrayList<>();
    driver.onProbeNode = probed::add;
    driver.onAvoidHost = avoided::add;
    WorkerFleet fleet = running(3, 1, 3, 2);
    LeaderReport withoutC2 = new LeaderReport(2, Optional.of(List.of("c1", "c3")), 1, List.of("c2"));
    fleet.onProgressReport(withoutC2);
    fleet.onProgressReport(withoutC2);
    assertEquals(List.of("c2"), probed, "its node is asked once");
    assertTrue(requested.isEmpty(), "nothing before the node's answer");

    fleet.onNodeUnreachable("c2", "its node manager at h1:8041 does not answer (NoRouteToHostException)");
    assertEquals(List.of("h1"), avoided, "no replacement on the node that is gone");
    assertEquals(List.of("c2"), released);
    assertEquals(List.of(1), requested, "one replacement");
    String status = fleet.status().diagnostics();
    assertTrue(status.contains("c2 on h1 (exit status -100"), status);
    assertTrue(status.contains("worker failures: 1 of 2 allowed"), status);

    // YARN's own report once the node expired, and the leader's next reports: nothing counted twice.
    fleet.onContainerCompleted("c2", ContainerExitStatus.ABORTED, "Container released on a *lost* node");
    fleet.onProgressReport(withoutC2);
    fleet.onNodeUnreachable("c2", "again");
    assertEquals(List.of(1), requested);
    assertEquals(List.of("c2"), probed);
    assertTrue(fleet.status().diagnostics().contains("worker failures: 1 of 2 allowed"), fleet.status().diagnostics());
  }

  @Test
  void aWorkerDeclaredFailedWhoseNodeAnswersIsCountedFromYarnsReport() {
    List<String> probed = new ArrayList<>();
    driver.onProbeNode = probed::add;
    WorkerFleet fleet = running(3, 1, 3, 2);
    fleet.onProgressReport(new LeaderReport(2, Optional.of(List.of("c1", "c3")), 1, List.of("c2")));
    assertEquals(List.of("c2"), probed);
    // The node answered (no onNodeUnreachable): its node manager reports the exit itself.
    fleet.onContainerCompleted("c2", 137, KILLED);
    assertEquals(List.of(1), requested);
    assertTrue(fleet.status().diagnostics().contains("c2 on h1 (exit status 137 (killed)) failed"),
        fleet.status().diagnostics());
    assertTrue(released.isEmpty(), "YARN ended it: nothing to give back");
  }

  @Test
  void aLostNodeAndAnUnaskedPreemptionAreFailuresAndTheOneBeyondTheLimitFailsTheJobNamingEach() {
    WorkerFleet fleet = running(4, 1, 4, 2);
    fleet.onContainerCompleted("c1", ContainerExitStatus.ABORTED, "Container released on a *lost* node");
    fleet.onContainerCompleted("c3", ContainerExitStatus.PREEMPTED, "Container preempted by scheduler");
    assertEquals(List.of(1, 1), requested);
    assertFalse(fleet.outcome().isDone());
    fleet.onContainersAllocated(List.of(c("c5", "h3"), c("c6", "h3")));
    fleet.onContainerStarted("c5");
    fleet.onContainerStarted("c6");

    fleet.onContainerCompleted("c4", 1, "EDL worker failed: broken ring");
    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    String d = outcome.diagnostics();
    assertTrue(d.contains("c4 on h2 (exit status 1 (worker error)) failed: EDL worker failed: broken ring"), d);
    assertTrue(d.contains("max-worker-failures=2"), d);
    assertTrue(d.contains("c1 on h1 (exit status -100 (ABORTED"), d);
    assertTrue(d.contains("c3 on h2 (exit status -102 (PREEMPTED))"), d);
    assertEquals(List.of("c2", "c5", "c6"), released);
    assertEquals(List.of(1, 1), requested, "no replacement for the fatal one");
  }

  @Test
  void withNoWorkerLeftToHandOnTheModelAFailureFailsTheJob() {
    WorkerFleet alone = running(1, 1, 2, 3);
    alone.onContainerCompleted("c1", 137, KILLED);
    assertTrue(alone.outcome().getNow(null).diagnostics().contains("no running worker is left"));
    assertTrue(requested.isEmpty());

    // The replacement of the first failure has not joined the ring when the last member dies.
    WorkerFleet two = running(2, 1, 2, 3);
    two.onContainerCompleted("c1", 137, KILLED);
    two.onContainersAllocated(List.of(c("c3", "h2")));
    two.onContainerStarted("c3");
    two.onContainerCompleted("c2", 137, KILLED);
    JobOutcome outcome = two.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("c2 on h1"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("no running worker is left"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("c1 on h1"), "every failure is named: " + outcome.diagnostics());
    assertEquals(List.of("c3"), released);
  }

  @Test
  void aFailureAfterTrainingFinishedIsCountedAndTheOutputDecidesButANewcomerNeverJoinedIsNotCounted()
      throws Exception {
    WorkerFleet fleet = running(2, 1, 3, 3);
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 137, KILLED);
    JobOutcome end = fleet.outcome().getNow(null);
    assertTrue(end.succeeded(), "the model was written before c1 exited 0: " + end.diagnostics());
    assertTrue(end.diagnostics().contains("worker failures: 1 of 3"), end.diagnostics());

    WorkerFleet other = running(2, 1, 3, 3);
    other.scaleOut(1, ScaleMode.EDL);
    other.onContainersAllocated(List.of(c("c3", "h2")));
    other.onContainerStarted("c3");
    other.onContainerCompleted("c1", 0, "");
    other.onContainerCompleted("c3", 137, KILLED);
    assertFalse(other.outcome().isDone());
    other.onContainerCompleted("c2", 0, "");
    assertTrue(other.outcome().getNow(null).succeeded());
  }

  @Test
  void aWorkerThatCannotStartIsAFailureItsContainerIsGivenBackAndReplaced() {
    List<String> exited = new java.util.ArrayList<>();
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, settings(2, 1, 2).toleratingWorkerFailures(1)
        .reportingExitsTo(exited::add).build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    fleet.onContainerStarted("c2");
    fleet.onContainerStartFailed("c1", new java.io.IOException("node manager unreachable"));
    assertEquals(List.of("c1"), released);
    assertEquals(List.of("c1"), exited, "reported gone, so that its GPU record goes too");
    assertEquals(List.of(2, 1), requested);
    assertTrue(fleet.status().diagnostics().contains("c1 on h1 (could not be started:"), fleet.status().diagnostics());
    // Its completion comes later and changes nothing.
    fleet.onContainerCompleted("c1", ContainerExitStatus.ABORTED, "released");
    assertEquals(List.of(2, 1), requested);
    assertEquals(List.of("c1"), exited);

    fleet.onContainersAllocated(List.of(c("c3", "h2")));
    fleet.onContainerStarted("c3");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertFalse(fleet.status().scaling(), "the job had not started: no change to land");
  }

  @Test
  void aFailureWhileStartingResumedFromACheckpointGivesTheReplacementTheCheckpointToo() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, settings(2, 1, 2).toleratingWorkerFailures(1)
        .startingFrom("hdfs:///old/ckpt-1").build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    fleet.onContainerStarted("c1");
    fleet.onContainerCompleted("c2", 137, KILLED);
    fleet.onContainersAllocated(List.of(c("c3", "h2")));
    assertEquals("hdfs:///old/ckpt-1", launched.get("c3").env().get(WorkerEnv.RESTORE_FROM),
        "the first ring has not formed: the replacement is one of its first workers");
  }

  @Test
  void aScaleOutNewcomerThatDiesBeforeJoiningIsReplacedAndTheChangeStillLands() throws Exception {
    WorkerFleet fleet = running(2, 1, 3, 1);
    fleet.scaleOut(1, ScaleMode.EDL);
    fleet.onContainersAllocated(List.of(c("c3", "h2")));
    fleet.onContainerStarted("c3");
    fleet.onContainerCompleted("c3", 1, "could not fetch the model");
    assertFalse(fleet.outcome().isDone());
    assertEquals(List.of(1, 1), requested);
    assertEquals(3, fleet.status().targetWorkers(), "never above max-workers");

    fleet.onContainersAllocated(List.of(c("c4", "h2"), c("c5", "h2")));
    assertEquals(List.of("c5"), released, "only one was missing");
    fleet.onContainerStarted("c4");
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());
    assertEquals(List.of("c1", "c2", "c4"), fleet.status().containers());
  }

  /**
   * The leader reports the ring at its old size before it noticed the failure: that report still
   * counts the dead worker, so the replacement is a newcomer until the leader shows the recovery
   * (an event naming the failure, or a smaller ring), and one that fails after training finished
   * cannot have held the model.
   */
  @Test
  void aReportOfTheOldRingSizeBeforeTheRecoveryDoesNotMakeTheReplacementAMember() throws Exception {
    WorkerFleet fleet = running(3, 3, 3, 1);
    fleet.onProgressReport(3);
    fleet.onContainerCompleted("c2", 137, KILLED);
    fleet.onContainersAllocated(List.of(c("c4", "h1")));
    fleet.onContainerStarted("c4");
    fleet.onProgressReport(3);
    assertTrue(fleet.status().scaling(), "the leader has not recovered yet: its 3 counted c2");
    fleet.onProgressReport(new LeaderReport(3, java.util.Optional.of(List.of("c1", "c3", "c4")), 1));
    assertFalse(fleet.status().scaling(), "recovered (c2 is not in the ring the leader names), and c4 joined since");
  }

  @Test
  void aReplacementThatFailsAfterTrainingEndedBeforeTheLeaderShowedTheRecoveryIsNoFailure() throws Exception {
    WorkerFleet again = running(3, 3, 3, 1);
    again.onProgressReport(3);
    again.onContainerCompleted("c2", 137, KILLED);
    again.onContainersAllocated(List.of(c("c4", "h1")));
    again.onContainerStarted("c4");
    again.onProgressReport(3);
    // Training ends before the leader reported the recovery: c4 never joined.
    again.onContainerCompleted("c1", 0, "");
    again.onContainerCompleted("c3", 0, "");
    again.onContainerCompleted("c4", 1, "Connection refused");
    assertTrue(again.outcome().isDone());
    assertTrue(again.outcome().get().succeeded(), again.outcome().get().diagnostics());
  }

  @Test
  void aLeaverThatDiesHasLeftNothingIsReplacedAndAPreemptedLeaverIsNoFailure() throws Exception {
    WorkerFleet fleet = running(4, 1, 4, 1);
    fleet.scaleIn(0, List.of("c4"), ScaleMode.EDL);
    fleet.onContainerCompleted("c4", 137, KILLED);
    assertFalse(fleet.outcome().isDone());
    assertTrue(requested.isEmpty(), "the target no longer counts it");
    assertEquals(3, fleet.status().targetWorkers());
    assertTrue(fleet.status().diagnostics().contains("(leaving the job: SCALE_IN) failed"), fleet.status().diagnostics());
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());

    // The resource manager takes a container that was asked to leave: the leave is done.
    fleet.scaleIn(0, List.of("c3"), ScaleMode.EDL);
    fleet.onContainerCompleted("c3", ContainerExitStatus.PREEMPTED, "Container preempted by scheduler");
    assertFalse(fleet.outcome().isDone(), "no second failure");
    assertTrue(fleet.status().diagnostics().contains("worker failures: 1 of 1"), fleet.status().diagnostics());
    fleet.onProgressReport(2);
    assertFalse(fleet.status().scaling());
    assertTrue(requested.isEmpty());
  }

  @Test
  void aMigrationNewcomerThatDiesIsReplacedOnTheTargetHost() throws Exception {
    WorkerFleet fleet = running(3, 1, 3, 1);
    driver.runningNode = host -> true;
    fleet.migrate("h1", "h3");
    removal.replacementAnswer.accepted(-1);
    fleet.onContainersAllocated(List.of(c("c4", "h3"), c("c5", "h3")));
    fleet.onContainerStarted("c4");
    fleet.onContainerCompleted("c5", 137, KILLED);
    assertEquals(List.of("h3", "h3", "h3"), pinnedTo);
    assertTrue(fleet.status().diagnostics().contains("replacement on the migration's target host h3"),
        fleet.status().diagnostics());
    assertTrue(requested.isEmpty(), "no unpinned request");

    fleet.onContainersAllocated(List.of(c("c6", "h3")));
    assertTrue(launched.containsKey("c6"));
    fleet.onContainerStarted("c6");
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());
    assertEquals(List.of("c3", "c4", "c6"), fleet.status().containers());
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
  }

  @Test
  void aMigrationLeaverThatDiesBeforeTheLeaderAnswersIsReplacedWhenTheLeaderRefuses() throws Exception {
    WorkerFleet fleet = running(3, 1, 3, 1);
    driver.runningNode = host -> true;
    fleet.migrate("h1", "h3");
    fleet.onContainerCompleted("c1", 137, KILLED);
    assertTrue(requested.isEmpty() && pinnedTo.isEmpty());
    removal.replacementAnswer.refused(new EdlError("leavers=c1,c2: c1 failed"));
    assertEquals(List.of(1), requested, "the target counts it again");
    assertTrue(fleet.status().scaling());
  }

  @Test
  void aWorkerThatDiesWhileStoppingForStopResumeCountsAsStoppedAndTheRelaunchReplacesItsOwnFailures()
      throws Exception {
    WorkerFleet fleet = runningWithStopResume(2, 1, 4, 2);
    fleet.scaleOut(1, ScaleMode.STOP_RESUME);
    stopAnswer.accepted(40);
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 137, KILLED);
    assertFalse(fleet.outcome().isDone());
    assertEquals(List.of(3), requested);

    fleet.onContainersAllocated(List.of(c("c3", "h1"), c("c4", "h1"), c("c5", "h2")));
    fleet.onContainerStarted("c3");
    fleet.onContainerStarted("c4");
    // A relaunched worker dies before the new ring formed: the checkpoint still holds the model.
    fleet.onContainerCompleted("c5", 137, KILLED);
    assertEquals(List.of(3, 1), requested);
    fleet.onContainersAllocated(List.of(c("c6", "h2")));
    assertEquals("hdfs:///out/checkpoints/restart-1", launched.get("c6").env().get(WorkerEnv.RESTORE_FROM));
    assertEquals("3", launched.get("c6").env().get(WorkerEnv.FIRST_RING_WORKERS));
    fleet.onContainerStarted("c6");
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());
  }

  @Test
  void aStopTheLeaderRefusesAfterAWorkerDiedReplacesThatWorker() throws Exception {
    WorkerFleet fleet = runningWithStopResume(2, 1, 4, 1);
    fleet.scaleOut(1, ScaleMode.STOP_RESUME);
    fleet.onContainerCompleted("c1", 137, KILLED);
    assertTrue(requested.isEmpty(), "c2 still holds its GPUs for the stop");
    stopAnswer.refused(new EdlError("a worker failed"));
    assertEquals(2, fleet.status().targetWorkers());
    assertEquals(List.of(1), requested);
    fleet.onContainersAllocated(List.of(c("c3", "h1")));
    assertEquals(Map.of(), launched.get("c3").env(), "no stop-resume any more: joins the running ring");
  }

  @Test
  void aNewAttemptGivesNoLaterContainerTheCheckpointTheJobWasResumedFrom() throws Exception {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, settings(2, 2, 3).toleratingWorkerFailures(1)
        .startingFrom("hdfs:///old/ckpt-1").build());
    fleet.adopt(Map.of(c("c1", "h1"), List.of(0, 1)));
    assertEquals(List.of(1), requested);
    fleet.onContainersAllocated(List.of(c("c2", "h1")));
    assertEquals(Map.of(), launched.get("c2").env());
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(2);
    fleet.onContainerCompleted("c1", 137, KILLED);
    fleet.onContainersAllocated(List.of(c("c3", "h2")));
    assertEquals(Map.of(), launched.get("c3").env());
  }

  @Test
  void aContainerReportedTwiceOrThatCouldNotStartAndThenCompletedCountsOnce() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, settings(3, 1, 3).toleratingWorkerFailures(2).build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1"), c("c3", "h2")));
    fleet.onContainerStarted("c2");
    fleet.onContainerStarted("c3");
    fleet.onContainerStartFailed("c1", new java.io.IOException("node manager unreachable"));
    fleet.onContainerStartFailed("c1", new java.io.IOException("node manager unreachable"));
    fleet.onContainerCompleted("c1", ContainerExitStatus.ABORTED, "released");
    assertTrue(fleet.status().diagnostics().contains("worker failures: 1 of 2 allowed"), fleet.status().diagnostics());

    fleet.onContainersAllocated(List.of(c("c4", "h2")));
    fleet.onContainerStarted("c4");
    fleet.onProgressReport(3);
    fleet.onContainerCompleted("c2", 137, KILLED);
    fleet.onContainerCompleted("c2", 137, KILLED);
    assertFalse(fleet.outcome().isDone(), "2 of 2 allowed: the job goes on");
    assertTrue(fleet.status().diagnostics().contains("worker failures: 2 of 2 allowed"), fleet.status().diagnostics());
    assertEquals(List.of(3, 1, 1), requested, "one replacement per dead container");
  }

  private FleetSettings.Builder settings(int workers, int min, int max) {
    return FleetSettings.of(RESOURCE, workers, min, max).removingBy(removal);
  }

  private WorkerFleet running(int workers, int min, int max, int failuresAllowed) {
    return started(settings(workers, min, max), workers, failuresAllowed);
  }

  private WorkerFleet runningWithStopResume(int workers, int min, int max, int failuresAllowed) {
    return started(settings(workers, min, max).stoppingBy((dir, a) -> {
      stops.add(dir);
      stopAnswer = a;
    }, "hdfs:///out/checkpoints"), workers, failuresAllowed);
  }

  /** c1 and c2 on h1, the rest on h2; all in the ring. */
  private WorkerFleet started(FleetSettings.Builder settings, int workers, int failuresAllowed) {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, settings.toleratingWorkerFailures(failuresAllowed).build());
    fleet.start();
    List<WorkerContainer> cs = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      cs.add(c("c" + i, i <= 2 ? "h1" : "h2"));
    }
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(workers);
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    requested.clear();
    launched.clear();
    return fleet;
  }

  private static WorkerContainer c(String id, String host) {
    return new WorkerContainer(id, host);
  }
}
