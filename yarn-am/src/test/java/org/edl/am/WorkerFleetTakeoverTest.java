package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.edl.job.WorkerEnv;
import org.edl.job.ScaleMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A new AM attempt takes over the change the dead one had under way, from the intent the old
 * fleet journalled: the old fleet is driven into the middle of a change, then a second fleet
 * adopts the containers still running with the old fleet's last intent.
 */
class WorkerFleetTakeoverTest {
  private static final WorkerResource RESOURCE = new WorkerResource(1024, 1, 1);
  /** The job's output verifies: these tests are about the containers. */
  private static final OutputCheck VERIFIED = Optional::empty;
  private static final String CHECKPOINTS = "hdfs:///out/checkpoints";

  private final List<Integer> requested = new ArrayList<>();
  private final Map<String, WorkerLaunch> launched = new LinkedHashMap<>();
  private final List<String> pinnedTo = new ArrayList<>();
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
  private final FleetJournal journal = new TestingFleetJournal();
  private JobStopper.Answer stopAnswer;
  private TestingContainerDriver driver;

  @BeforeEach
  void driver() {
    driver = new TestingContainerDriver();
    driver.onRequest = (n, r) -> requested.add(n);
    driver.onLaunch = (c, l) -> launched.put(c.id(), l);
    driver.onRequestOn = (n, r, host) -> {
      for (int i = 0; i < n; i++) {
        pinnedTo.add(host);
      }
    };
  }

  @Test
  void aScaleOutUnderWayGetsItsMissingNewcomers() throws Exception {
    WorkerFleet old = running(2, 1, 4);
    old.scaleOut(2, ScaleMode.EDL);
    old.onContainersAllocated(List.of(c("c3", "h2")));
    old.onContainerStarted("c3");

    WorkerFleet next = newAttempt();
    next.adopt(adopted("c1", "c2", "c3"), journal.last());
    assertEquals(4, next.status().targetWorkers());
    assertEquals(List.of(1), requested);
    assertTrue(next.status().scaling());
    assertTrue(next.status().diagnostics().contains("taking over its change"), next.status().diagnostics());
    next.onContainersAllocated(List.of(c("c4", "h2")));
    assertEquals(Map.of(), launched.get("c4").env());
    next.onContainerStarted("c4");
    next.onProgressReport(4);
    assertFalse(next.status().scaling());
  }

  @Test
  void aScaleOutWhoseNewcomersAllRunIsScalingUntilTheLeaderReportsThem() throws Exception {
    WorkerFleet old = running(2, 1, 4);
    old.scaleOut(1, ScaleMode.EDL);
    old.onContainersAllocated(List.of(c("c3", "h2")));
    old.onContainerStarted("c3");

    WorkerFleet next = newAttempt();
    next.adopt(adopted("c1", "c2", "c3"), journal.last());
    assertEquals(3, next.status().targetWorkers());
    assertTrue(requested.isEmpty(), "nothing is missing");
    assertTrue(next.status().scaling(), "the leader has not shown c3 in the ring to this attempt");
    next.onProgressReport(3);
    assertFalse(next.status().scaling());
  }

  @Test
  void aLeaverOfAScaleInUnderWayIsStillExpectedToLeave() throws Exception {
    WorkerFleet old = running(3, 1, 3);
    old.scaleIn(0, List.of("c3"), ScaleMode.EDL);

    WorkerFleet next = newAttempt();
    next.adopt(adopted("c1", "c2", "c3"), journal.last());
    assertEquals(2, next.status().targetWorkers());
    assertTrue(requested.isEmpty());
    next.onContainerCompleted("c3", WorkerEnv.EXIT_LEFT, "");
    assertEquals(2, next.status().targetWorkers(), "its own scale-in, not a straggler's removal");
    assertTrue(next.status().diagnostics().contains("SCALE_IN"), next.status().diagnostics());
    next.onProgressReport(2);
    assertFalse(next.status().scaling());
    assertTrue(requested.isEmpty());
    // Without the journal the same exit would have shrunk the target below the change's.
  }

  @Test
  void aMigrationTheLeaderHeldGetsItsMissingNewcomersOnTheTargetHost() throws Exception {
    WorkerFleet old = running(3, 1, 3);
    old.migrate("h1", "h3");
    removal.replacementAnswer.accepted(-1);
    old.onContainersAllocated(List.of(c("c4", "h3")));
    pinnedTo.clear();

    WorkerFleet next = newAttempt();
    next.adopt(adopted("c1", "c2", "c3", "c4"), journal.last());
    assertEquals(List.of("h3"), pinnedTo, "one newcomer of two is still missing");
    assertTrue(requested.isEmpty());
    next.onContainersAllocated(List.of(c("c5", "h3")));
    next.onContainerStarted("c5");
    next.onContainerCompleted("c1", 0, "");
    next.onContainerCompleted("c2", 0, "");
    assertEquals(WorkerFleet.Phase.RUNNING, next.status().phase(), "the leavers' exit 0 is their departure");
    next.onProgressReport(3);
    assertFalse(next.status().scaling());
    assertEquals(List.of("c3", "c4", "c5"), next.status().containers());
  }

  @Test
  void aMigrationTheLeaderHadNotAcceptedIsForgotten() throws Exception {
    WorkerFleet old = running(3, 1, 3);
    old.migrate("h1", "h3");

    WorkerFleet next = newAttempt();
    next.adopt(adopted("c1", "c2", "c3"), journal.last());
    assertTrue(pinnedTo.isEmpty() && requested.isEmpty());
    assertFalse(next.status().scaling());
    next.migrate("h1", "h3");
    assertEquals(2, removal.replacements.size(), "the new attempt may migrate them again");
  }

  @Test
  void aStopResumeUnderWayRelaunchesFromItsCheckpointOnceTheLastOldWorkerStopped() throws Exception {
    WorkerFleet old = running(2, 1, 4);
    old.scaleOut(1, ScaleMode.STOP_RESUME);
    stopAnswer.accepted(40);
    old.onContainerCompleted("c1", 0, "");

    WorkerFleet next = newAttempt();
    next.adopt(adopted("c2"), journal.last());
    assertTrue(requested.isEmpty(), "c2 still holds its GPUs");
    next.onContainerCompleted("c2", 0, "");
    assertEquals(List.of(3), requested);
    next.onContainersAllocated(List.of(c("c3", "h1"), c("c4", "h1"), c("c5", "h2")));
    for (WorkerLaunch l : launched.values()) {
      assertEquals(CHECKPOINTS + "/restart-1", l.env().get(WorkerEnv.RESTORE_FROM));
      assertEquals("3", l.env().get(WorkerEnv.FIRST_RING_WORKERS));
    }
    List.of("c3", "c4", "c5").forEach(next::onContainerStarted);
    next.onProgressReport(3);
    assertFalse(next.status().scaling());
    next.scaleIn(1, List.of(), ScaleMode.STOP_RESUME);
    assertEquals(CHECKPOINTS + "/restart-2", journal.last().orElseThrow().restart().directory(),
        "the next stop-resume does not overwrite the first one's checkpoint");
  }

  @Test
  void aStopResumeWhoseOldWorkersAllStoppedRelaunchesEvenWithNoneLeft() throws Exception {
    WorkerFleet old = running(2, 1, 4);
    old.scaleIn(1, List.of(), ScaleMode.STOP_RESUME);
    stopAnswer.accepted(40);
    old.onContainerCompleted("c1", 0, "");
    old.onContainerCompleted("c2", 0, "");
    requested.clear();

    WorkerFleet next = newAttempt(settings(2, 1, 4).startingFrom("hdfs:///old/ckpt-1"));
    next.adopt(Map.of(), journal.last());
    assertEquals(List.of(1), requested);
    next.onContainersAllocated(List.of(c("c3", "h1")));
    assertEquals(CHECKPOINTS + "/restart-1", launched.get("c3").env().get(WorkerEnv.RESTORE_FROM),
        "the stop's checkpoint, not the one the job was submitted with");
    next.onContainerStarted("c3");
    next.onProgressReport(1);
    assertEquals(WorkerFleet.Phase.RUNNING, next.status().phase());
    assertFalse(next.status().scaling());
  }

  @Test
  void withoutAJournalledIntentTheRunningWorkersAreTheTarget() {
    WorkerFleet next = newAttempt();
    next.adopt(adopted("c1", "c2", "c3"), Optional.empty());
    assertEquals(3, next.status().targetWorkers());
    assertFalse(next.status().scaling());
    assertTrue(requested.isEmpty());
  }

  @Test
  void theWorkerFailuresOfAnEarlierAttemptStillCount() throws Exception {
    WorkerFleet old = running(settings(3, 1, 3).toleratingWorkerFailures(1), 3);
    old.onContainerCompleted("c3", 137, "killed");
    assertTrue(old.status().diagnostics().contains("worker failures: 1 of 1"), old.status().diagnostics());

    WorkerFleet next = newAttempt(settings(2, 1, 4).toleratingWorkerFailures(1));
    next.adopt(adopted("c1", "c2"), journal.last());
    assertTrue(next.status().diagnostics().contains("worker failures: 1 of 1 allowed (c3 on h2"),
        next.status().diagnostics());
    next.onContainerCompleted("c2", 137, "killed");
    assertTrue(next.outcome().isDone(), "the second failure of the job is beyond the one allowed");
    assertFalse(next.outcome().get().succeeded(), next.outcome().get().diagnostics());
  }

  /**
   * Found on bin/edl cluster: the AM was killed after every worker had exited 0 and before it
   * unregistered; the next attempt relaunched workers that waited five minutes for a leader and
   * failed the job, holding GPUs meanwhile.
   */
  @Test
  void anAttemptAfterTrainingFinishedSucceedsWithoutRelaunchingWhenTheOutputVerifies() throws Exception {
    WorkerFleet old = running(2, 1, 4);
    old.onContainerCompleted("c1", 0, "");
    requested.clear();
    WorkerFleet next = new WorkerFleet(driver, VERIFIED, settings(2, 1, 4).build());
    next.adopt(Map.of(), journal.last());
    assertTrue(next.outcome().getNow(null).succeeded());
    assertTrue(next.outcome().getNow(null).diagnostics().contains("training had finished"));
    assertTrue(requested.isEmpty(), "nothing relaunched: " + requested);

    WorkerFleet missing = new WorkerFleet(driver, () -> Optional.of("model.bin is missing"), settings(2, 1, 4).build());
    missing.adopt(Map.of(), journal.last());
    assertFalse(missing.outcome().isDone());
    assertEquals(List.of(2), requested, "without a verified output the job starts anew");
  }

  private WorkerFleet newAttempt() {
    return newAttempt(settings(2, 1, 4));
  }

  private WorkerFleet newAttempt(FleetSettings.Builder settings) {
    requested.clear();
    launched.clear();
    return new WorkerFleet(driver, VERIFIED, settings.build());
  }

  /** Every attempt journals to the same place, as the AM's attempts do to the job's ZooKeeper node. */
  private FleetSettings.Builder settings(int workers, int min, int max) {
    return FleetSettings.of(RESOURCE, workers, min, max).removingBy(removal)
        .stoppingBy((dir, a) -> stopAnswer = a, CHECKPOINTS).journaling(journal);
  }

  private WorkerFleet running(int workers, int min, int max) {
    return running(settings(workers, min, max), workers);
  }

  /** c1 and c2 on h1, the rest on h2; all in the ring. */
  private WorkerFleet running(FleetSettings.Builder settings, int workers) {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, settings.build());
    fleet.start();
    List<WorkerContainer> cs = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      cs.add(c("c" + i, i <= 2 ? "h1" : "h2"));
    }
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(workers);
    requested.clear();
    launched.clear();
    return fleet;
  }

  private static Map<WorkerContainer, List<Integer>> adopted(String... ids) {
    Map<WorkerContainer, List<Integer>> running = new LinkedHashMap<>();
    for (String id : ids) {
      int n = Integer.parseInt(id.substring(1));
      String host = n <= 2 ? "h1" : n == 3 ? "h2" : "h3";
      running.put(c(id, host), List.of());
    }
    return running;
  }

  private static WorkerContainer c(String id, String host) {
    return new WorkerContainer(id, host);
  }
}
