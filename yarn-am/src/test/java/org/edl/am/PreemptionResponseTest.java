package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.edl.job.WorkerEnv;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fleet's answer to the resource manager's preemption warnings ({@link PreemptionResponse}),
 * with the YARN and leader sides faked.
 */
class PreemptionResponseTest {
  private static final WorkerResource RESOURCE = new WorkerResource(1024, 1, 2);
  /** The job's output verifies: these tests are about the containers. */
  private static final OutputCheck VERIFIED = Optional::empty;

  private final List<Integer> requested = new ArrayList<>();
  private final List<String> released = new ArrayList<>();
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
  private TestingContainerDriver driver;

  @BeforeEach
  void driver() {
    driver = new TestingContainerDriver();
    driver.onRequest = (n, r) -> requested.add(n);
    driver.onRelease = released::add;
  }

  /** RUNNING c1..cN (launch order), the leader reporting N. */
  private WorkerFleet running(int workers, int min, int max) {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, removal, RESOURCE, workers, min, max);
    fleet.start();
    List<WorkerContainer> cs = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      cs.add(new WorkerContainer("c" + i, i <= 4 ? "h1" : "h2"));
    }
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(workers);
    assertFalse(fleet.status().scaling());
    requested.clear();
    return fleet;
  }

  private static PreemptionRequest named(String... ids) {
    return new PreemptionRequest(Set.of(ids), 0, 0);
  }

  @Test
  void namedContainersLeaveByScaleInOnceAndTheirPreemptionCompletesItWithoutAReplacement() {
    WorkerFleet fleet = running(8, 2, 8);
    fleet.onPreemptionRequested(named("c5", "c6", "c7", "c8"));
    assertEquals(1, removal.asked.size());
    assertEquals(Set.of("c5", "c6", "c7", "c8"), Set.copyOf(removal.asked.get(0)));
    assertEquals(4, fleet.status().targetWorkers());
    removal.asked.get(0).forEach(id -> removal.answers.accepted(id, 120));

    // The same message on every heartbeat until the containers are gone: asked once.
    fleet.onPreemptionRequested(named("c5", "c6", "c7", "c8"));
    fleet.onPreemptionRequested(new PreemptionRequest(Set.of(), 0, 0));
    assertEquals(1, removal.asked.size());

    fleet.onContainerCompleted("c5", WorkerEnv.EXIT_LEFT, "");
    fleet.onContainerCompleted("c6", WorkerEnv.EXIT_LEFT, "");
    // The grace period ran out for these two before their step: the RM's kill ends the same leave.
    fleet.onContainerCompleted("c7", ContainerExitStatus.PREEMPTED, "Container preempted by scheduler");
    fleet.onContainerCompleted("c8", ContainerExitStatus.PREEMPTED, "Container preempted by scheduler");
    fleet.onProgressReport(4);
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertFalse(fleet.status().scaling());
    assertEquals(List.of("c1", "c2", "c3", "c4"), fleet.status().containers());
    assertTrue(requested.isEmpty(), "the target dropped: nothing is replaced " + requested);
    assertTrue(released.isEmpty());
    assertFalse(fleet.status().diagnostics().contains("failure"), fleet.status().diagnostics());
  }

  @Test
  void neverBelowMinWorkersTheOldestNamedStay() {
    WorkerFleet fleet = running(5, 2, 8);
    fleet.onPreemptionRequested(named("c2", "c3", "c4", "c5"));
    assertEquals(List.of(List.of("c3", "c4", "c5")), removal.asked, "the newest three of those named");
    assertEquals(2, fleet.status().targetWorkers());

    WorkerFleet atMin = running(2, 2, 8);
    removal.asked.clear();
    atMin.onPreemptionRequested(named("c2"));
    assertTrue(removal.asked.isEmpty(), "a job at its minimum gives nothing back");
    assertEquals(2, atMin.status().targetWorkers());
  }

  /** Stop-resume requests the fleet made; the test answers through {@link #stopAnswer}. */
  private final List<String> stops = new ArrayList<>();
  private JobStopper.Answer stopAnswer;

  /**
   * The Elastic-Tiresias mode warns every container of a job of one size that it pauses: the job
   * stops with a checkpoint, gives every container back by exiting, asks for as many again, and
   * resumes from the checkpoint on the new ones, with nothing counted as a failure.
   */
  @Test
  void aWarningForEveryWorkerPausesTheJobWithACheckpointAndItResumesOnNewContainers() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, FleetSettings.of(RESOURCE, 3, 3, 3).removingBy(removal)
        .stoppingBy((dir, a) -> {
          stops.add(dir);
          stopAnswer = a;
        }, "hdfs:///out/checkpoints").build());
    fleet.start();
    List<WorkerContainer> cs = List.of(new WorkerContainer("c1", "h1"), new WorkerContainer("c2", "h1"),
        new WorkerContainer("c3", "h2"));
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(3);
    requested.clear();

    fleet.onPreemptionRequested(named("c1", "c2", "c3"));
    assertEquals(List.of("hdfs:///out/checkpoints/restart-1"), stops);
    assertTrue(removal.asked.isEmpty(), "no scale-in below min-workers");
    assertEquals(3, fleet.status().targetWorkers());
    assertTrue(fleet.status().diagnostics().contains("paused"), fleet.status().diagnostics());
    // Every heartbeat repeats the warning: one stop.
    fleet.onPreemptionRequested(named("c1", "c2", "c3"));
    assertEquals(1, stops.size());

    stopAnswer.accepted(70);
    fleet.onContainerCompleted("c1", WorkerEnv.EXIT_OK, "");
    fleet.onContainerCompleted("c2", WorkerEnv.EXIT_OK, "");
    assertTrue(requested.isEmpty(), "nothing asked while a worker still holds its GPUs");
    fleet.onContainerCompleted("c3", WorkerEnv.EXIT_OK, "");
    assertEquals(List.of(3), requested, "asked again, for the whole job");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());

    List<WorkerContainer> again = List.of(new WorkerContainer("c4", "h2"), new WorkerContainer("c5", "h2"),
        new WorkerContainer("c6", "h1"));
    fleet.onContainersAllocated(again);
    again.forEach(c -> fleet.onContainerStarted(c.id()));
    assertTrue(fleet.status().scaling(), "the stopped ring's last report of 3 shows no relaunch");
    fleet.onProgressReport(new LeaderReport(3, Optional.of(List.of("c1", "c2", "c3")), 1));
    assertTrue(fleet.status().scaling(), "nor does a late one naming the stopped workers");
    assertTrue(fleet.status().diagnostics().startsWith("paused"), fleet.status().diagnostics());
    fleet.onProgressReport(new LeaderReport(3, Optional.of(List.of("c4", "c5", "c6")), 2));
    assertFalse(fleet.status().scaling());
    assertTrue(fleet.status().diagnostics().startsWith("resumed on 3 new workers from hdfs:///out/checkpoints/restart-1"),
        fleet.status().diagnostics());
    assertEquals(List.of("c4", "c5", "c6"), fleet.status().containers());
    assertFalse(fleet.status().diagnostics().contains("failure"), fleet.status().diagnostics());
  }

  @Test
  void aWarningDuringAnotherChangeIsAnsweredByALaterHeartbeat() throws Exception {
    WorkerFleet fleet = running(4, 1, 8);
    fleet.scaleOut(1, org.edl.job.ScaleMode.EDL);
    fleet.onPreemptionRequested(named("c4"));
    assertTrue(removal.asked.isEmpty(), "SCALING: nothing asked yet");

    fleet.onContainersAllocated(List.of(new WorkerContainer("c5", "h2")));
    fleet.onContainerStarted("c5");
    fleet.onProgressReport(5);
    assertFalse(fleet.status().scaling());
    fleet.onPreemptionRequested(named("c4"));
    assertEquals(List.of(List.of("c4")), removal.asked);
    assertEquals(4, fleet.status().targetWorkers());
  }

  /**
   * A leader that refuses the pause's stop (here: the job ends before a stop could take effect) is
   * not asked again on every heartbeat for the same workers; once the ring has changed it is.
   */
  @Test
  void aRefusedPauseIsNotAskedAgainUntilTheRingChanges() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, FleetSettings.of(RESOURCE, 2, 2, 2).removingBy(removal)
        .stoppingBy((dir, a) -> {
          stops.add(dir);
          stopAnswer = a;
        }, "hdfs:///out/checkpoints").toleratingWorkerFailures(1).build());
    fleet.start();
    fleet.onContainersAllocated(List.of(new WorkerContainer("c1", "h1"), new WorkerContainer("c2", "h1")));
    List.of("c1", "c2").forEach(fleet::onContainerStarted);
    fleet.onProgressReport(2);

    fleet.onPreemptionRequested(named("c1", "c2"));
    assertEquals(1, stops.size());
    stopAnswer.refused(new org.edl.thrift.EdlError("directory=...: the job ends with step 99 before a stop could take"
        + " effect"));
    assertFalse(fleet.status().scaling());
    for (int heartbeat = 0; heartbeat < 5; heartbeat++) {
      fleet.onPreemptionRequested(named("c1", "c2"));
    }
    assertEquals(1, stops.size(), "the same ring is not asked again");

    fleet.onContainerCompleted("c2", 1, "EDL worker failed");
    fleet.onContainersAllocated(List.of(new WorkerContainer("c3", "h2")));
    fleet.onContainerStarted("c3");
    fleet.onProgressReport(new LeaderReport(2, Optional.of(List.of("c1", "c3")), 1));
    assertFalse(fleet.status().scaling());
    fleet.onPreemptionRequested(named("c1", "c3"));
    assertEquals(2, stops.size(), "a new ring is");
  }

  /**
   * A job of one size warned while it replaces a failed worker cannot pause; the grace period ends
   * and the RM takes its last ring member: no ring is left to hand new workers the model, so the
   * job starts again from its newest checkpoint on new containers, with no failure counted for the
   * warned kill.
   */
  @Test
  void aRingPreemptedWholeAfterItsWarningStartsAgainFromTheNewestCheckpoint() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, FleetSettings.of(RESOURCE, 2, 2, 2).removingBy(removal)
        .stoppingBy((dir, a) -> stops.add(dir), "hdfs:///out/checkpoints").toleratingWorkerFailures(1)
        .restartingFrom(dir -> Optional.of("hdfs:///out/checkpoints/periodic/ckpt-00000000000000000500")).build());
    java.util.Map<String, WorkerLaunch> launched = new java.util.LinkedHashMap<>();
    driver.onLaunch = (c, l) -> launched.put(c.id(), l);
    fleet.start();
    List<WorkerContainer> cs = List.of(new WorkerContainer("c1", "h1"), new WorkerContainer("c2", "h1"));
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(2);
    requested.clear();
    launched.clear();

    fleet.onContainerCompleted("c2", 1, "EDL worker failed");
    assertEquals(List.of(1), requested, "a replacement for c2");
    fleet.onPreemptionRequested(named("c1"));
    assertTrue(stops.isEmpty(), "mid-change: no pause yet");
    fleet.onContainerCompleted("c1", ContainerExitStatus.PREEMPTED, "Container preempted by scheduler");

    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase(), fleet.status().diagnostics());
    assertEquals(List.of(1, 1), requested, "c2's replacement still counts; one more for c1");
    fleet.onContainersAllocated(List.of(new WorkerContainer("c3", "h2"), new WorkerContainer("c4", "h2")));
    for (WorkerLaunch l : launched.values()) {
      assertEquals("hdfs:///out/checkpoints/periodic/ckpt-00000000000000000500", l.env().get(WorkerEnv.RESTORE_FROM));
      assertEquals("2", l.env().get(WorkerEnv.FIRST_RING_WORKERS));
    }
    assertEquals(List.of("c3", "c4"), List.copyOf(launched.keySet()));
    assertTrue(fleet.status().diagnostics().contains("relaunching 2 workers from the job's newest checkpoint"),
        fleet.status().diagnostics());
    List.of("c3", "c4").forEach(fleet::onContainerStarted);
    fleet.onProgressReport(new LeaderReport(2, Optional.of(List.of("c3", "c4")), 2));
    assertFalse(fleet.status().scaling());
    assertTrue(fleet.status().diagnostics().contains("worker failures: 1 of 1"), fleet.status().diagnostics());
  }

  @Test
  void aResourceAskTakesTheNewestWorkersOncePerAsk() {
    WorkerFleet fleet = running(6, 2, 8);
    // 3 GPUs at 2 GPUs a worker: 2 workers.
    PreemptionRequest ask = new PreemptionRequest(Set.of(), 3, 3);
    fleet.onPreemptionRequested(ask);
    assertEquals(List.of(List.of("c6", "c5")), removal.asked);
    assertEquals(4, fleet.status().targetWorkers());
    removal.answers.accepted("c6", 50);
    removal.answers.accepted("c5", 50);
    fleet.onContainerCompleted("c6", WorkerEnv.EXIT_LEFT, "");
    fleet.onContainerCompleted("c5", WorkerEnv.EXIT_LEFT, "");
    fleet.onProgressReport(4);

    fleet.onPreemptionRequested(ask);
    assertEquals(1, removal.asked.size(), "the same standing ask is answered once");
    fleet.onPreemptionRequested(new PreemptionRequest(Set.of(), 0, 0));
    fleet.onPreemptionRequested(new PreemptionRequest(Set.of(), 8, 0));
    assertEquals(List.of("c4", "c3"), removal.asked.get(1), "a new ask, capped at min-workers");
    assertEquals(2, fleet.status().targetWorkers());
    assertTrue(requested.isEmpty());
  }

  @Test
  void aWarnedContainerTheJobCouldNotYetReleaseShrinksTheJobWhenItIsPreemptedInsteadOfFailingIt() throws Exception {
    WorkerFleet fleet = running(4, 3, 8);
    fleet.scaleOut(1, org.edl.job.ScaleMode.EDL);
    requested.clear();
    fleet.onPreemptionRequested(named("c4"));
    assertTrue(removal.asked.isEmpty(), "SCALING: nothing asked yet");

    fleet.onContainerCompleted("c4", ContainerExitStatus.PREEMPTED, "Container preempted by scheduler");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertEquals(4, fleet.status().targetWorkers());
    assertTrue(requested.isEmpty(), "not replaced: " + requested);
    assertTrue(fleet.status().diagnostics().contains("preempted by the scheduler after its warning"),
        fleet.status().diagnostics());

    // One never named is a failure as before (no failures allowed here: the job fails).
    fleet.onContainerCompleted("c3", ContainerExitStatus.PREEMPTED, "Container preempted by scheduler");
    assertEquals(WorkerFleet.Phase.FAILED, fleet.status().phase());
  }
}
