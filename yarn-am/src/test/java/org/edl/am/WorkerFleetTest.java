package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.edl.job.WorkerEnv;
import org.edl.thrift.EdlError;
import org.edl.job.ScaleMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WorkerFleetTest {
  private static final WorkerResource RESOURCE = new WorkerResource(1024, 1, 2);
  /** The job's output verifies: these tests are about the containers. */
  private static final OutputCheck VERIFIED = Optional::empty;

  private final List<Integer> requested = new ArrayList<>();
  private final Map<String, WorkerLaunch> launched = new LinkedHashMap<>();
  private final List<String> released = new ArrayList<>();
  private final List<String> pinnedTo = new ArrayList<>();
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
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
    driver.runningNode = host -> host.startsWith("h");
  }

  @Test
  void asksForTheTargetAndSucceedsWhenEveryWorkerExitsZero() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, RESOURCE, 3);
    fleet.start();
    assertEquals(List.of(3), requested);

    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    fleet.onContainersAllocated(List.of(c("c3", "h2")));
    assertEquals(List.of("c1", "c2", "c3"), List.copyOf(launched.keySet()));
    // Two containers on one host get distinct devices; another host starts again at 0.
    assertEquals(List.of(0, 1), launched.get("c1").gpuIndices());
    assertEquals(List.of(2, 3), launched.get("c2").gpuIndices());
    assertEquals(List.of(0, 1), launched.get("c3").gpuIndices());

    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    assertEquals(WorkerFleet.Phase.STARTING, fleet.status().phase());
    fleet.onContainerStarted("c3");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());

    fleet.onContainerCompleted("c2", 0, "");
    fleet.onContainerCompleted("c1", 0, "");
    assertFalse(fleet.outcome().isDone());
    assertEquals(WorkerFleet.Phase.FINISHING, fleet.status().phase());
    fleet.onContainerCompleted("c3", 0, "");

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertTrue(outcome.succeeded());
    assertEquals(WorkerFleet.Phase.SUCCEEDED, fleet.status().phase());
    assertEquals(List.of(3), requested, "nothing re-requested");
    assertTrue(released.isEmpty());
  }

  @Test
  void oneFailedWorkerFailsTheJobNamingTheContainerHostAndCauseAndReleasesTheOthers() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, RESOURCE, 3);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h2"), c("c3", "h2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onContainerStarted("c3");

    fleet.onContainerCompleted("c2", 137, "Container killed on request. Exit code is 137");

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("c2"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("h2"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("137"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("Container killed on request"), outcome.diagnostics());
    assertEquals(List.of("c1", "c3"), released);
    assertEquals(WorkerFleet.Phase.FAILED, fleet.status().phase());

    // The released workers' completions, and later ones, change nothing.
    fleet.onContainerCompleted("c1", -100, "released");
    fleet.onContainerCompleted("c3", 0, "");
    assertEquals(outcome, fleet.outcome().getNow(null));
    assertEquals(WorkerFleet.Phase.FAILED, fleet.status().phase());
  }

  @Test
  void aContainerThatCannotStartFailsTheJob() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, RESOURCE, 2);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    fleet.onContainerStartFailed("c1", new java.io.IOException("node manager unreachable"));

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("c1 on h1"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("node manager unreachable"), outcome.diagnostics());
    assertEquals(List.of("c1", "c2"), released);
  }

  @Test
  void allocationsBeyondTheTargetAreReleasedNotLaunched() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, RESOURCE, 2);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1"), c("c3", "h2")));

    assertEquals(List.of("c1", "c2"), List.copyOf(launched.keySet()));
    assertEquals(List.of("c3"), released);
    assertEquals(List.of("c1", "c2"), fleet.status().containers());

    // Its completion is not a worker failure.
    fleet.onContainerCompleted("c3", -100, "Container released by application");
    assertFalse(fleet.outcome().isDone());
  }

  @Test
  void afterAWorkerFinishedLateAllocationsAreReleased() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, RESOURCE, 2);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1")));
    fleet.onContainerStarted("c1");
    fleet.onContainerCompleted("c1", 0, "");
    assertTrue(fleet.outcome().getNow(null).succeeded());

    fleet.onContainersAllocated(List.of(c("c2", "h1")));
    assertEquals(List.of("c2"), released);
    assertEquals(List.of("c1"), List.copyOf(launched.keySet()));
  }

  @Test
  void aDriverErrorFailsTheJobOnce() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, RESOURCE, 1);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1")));
    fleet.onError(new IllegalStateException("resource manager asked the AM to shut down"));
    fleet.onError(new IllegalStateException("second"));

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("shut down"), outcome.diagnostics());
    assertEquals(List.of("c1"), released);
  }

  // ---- elastic changes ------------------------------------------------------------------------

  /** A RUNNING fleet of c1..cN (c1, c2 on h1, the rest on h2) whose leader reported N workers. */
  private WorkerFleet running(int workers, int min, int max) {
    return running(settings(workers, min, max));
  }

  private FleetSettings.Builder settings(int workers, int min, int max) {
    return FleetSettings.of(RESOURCE, workers, min, max).removingBy(removal);
  }

  private WorkerFleet running(FleetSettings.Builder settings) {
    FleetSettings built = settings.build();
    int workers = built.targetWorkers();
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, built);
    fleet.start();
    List<WorkerContainer> cs = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      cs.add(c("c" + i, i <= 2 ? "h1" : "h2"));
    }
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(workers);
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertFalse(fleet.status().scaling());
    requested.clear();
    launched.clear();
    return fleet;
  }

  @Test
  void scaleOutRequestsAndLaunchesMoreAndIsScalingUntilTheLeaderReportsTheNewSize() throws Exception {
    WorkerFleet fleet = running(2, 1, 4);
    fleet.scaleOut(2, ScaleMode.EDL);
    assertEquals(List.of(2), requested);
    assertEquals(4, fleet.status().targetWorkers());
    assertTrue(fleet.status().scaling());

    fleet.onContainersAllocated(List.of(c("c3", "h2"), c("c4", "h2")));
    assertEquals(List.of("c3", "c4"), List.copyOf(launched.keySet()));
    fleet.onContainerStarted("c3");
    fleet.onContainerStarted("c4");
    fleet.onProgressReport(2);
    assertTrue(fleet.status().scaling(), "started, but the leader still runs 2");
    fleet.onProgressReport(4);
    assertFalse(fleet.status().scaling());
    assertEquals(List.of("c1", "c2", "c3", "c4"), fleet.status().containers());
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
  }

  @Test
  void scaleOutBeyondMaxIsRefusedNamingCountAndMaxAndChangesNothing() throws Exception {
    WorkerFleet fleet = running(2, 1, 3);
    FleetStatus before = fleet.status();
    FleetRefusal e = assertThrows(FleetRefusal.class, () -> fleet.scaleOut(2, ScaleMode.EDL));
    assertEquals("count", e.field());
    assertEquals("2", e.value());
    assertTrue(e.getMessage().contains("max-workers=3"), e.getMessage());
    assertEquals(before, fleet.status());
    assertTrue(requested.isEmpty());

    FleetRefusal zero = assertThrows(FleetRefusal.class, () -> fleet.scaleOut(0, ScaleMode.EDL));
    assertEquals("count", zero.field());
    assertEquals(before, fleet.status());
  }

  @Test
  void changesAreRefusedUnlessTheJobIsRunningAndSteadyNamingTheState() throws Exception {
    WorkerFleet starting = new WorkerFleet(driver, VERIFIED, removal, RESOURCE, 2, 1, 4);
    starting.start();
    FleetRefusal e = assertThrows(FleetRefusal.class, () -> starting.scaleOut(1, ScaleMode.EDL));
    assertEquals("state", e.field());
    assertEquals("STARTING", e.value());

    WorkerFleet scaling = running(2, 1, 4);
    scaling.scaleOut(1, ScaleMode.EDL);
    requested.clear();
    FleetRefusal busy = assertThrows(FleetRefusal.class, () -> scaling.scaleIn(1, List.of(), ScaleMode.EDL));
    assertEquals("SCALING", busy.value());
    assertTrue(busy.getMessage().endsWith("target 3 workers; the leader reports 2)"), busy.getMessage());
    // A leader rebuilding its ring after a failure reports no size (-1): said in words, not as -1.
    scaling.onProgressReport(-1);
    FleetRefusal rebuilding = assertThrows(FleetRefusal.class, () -> scaling.scaleIn(1, List.of(), ScaleMode.EDL));
    assertTrue(rebuilding.getMessage().endsWith("target 3 workers; the leader is rebuilding the ring after a failure)"),
        rebuilding.getMessage());
    assertThrows(FleetRefusal.class, () -> scaling.scaleOut(1, ScaleMode.EDL));
    assertThrows(FleetRefusal.class, () -> scaling.migrate("h1", "h3"));
    assertEquals(3, scaling.status().targetWorkers());
    assertTrue(requested.isEmpty() && removal.asked.isEmpty() && pinnedTo.isEmpty());

    WorkerFleet finishing = running(2, 1, 4);
    finishing.onContainerCompleted("c1", 0, "");
    FleetRefusal late = assertThrows(FleetRefusal.class, () -> finishing.scaleIn(1, List.of(), ScaleMode.EDL));
    assertEquals("FINISHING", late.value());
    finishing.onContainerCompleted("c2", 0, "");
    FleetRefusal done = assertThrows(FleetRefusal.class, () -> finishing.scaleOut(1, ScaleMode.EDL));
    assertEquals("SUCCEEDED", done.value());
  }

  /** Records the stop-resume requests; the test answers through {@link #answer}. */
  private final List<String> stops = new ArrayList<>();
  private JobStopper.Answer answer;

  private FleetSettings.Builder stopResume(int workers, int min, int max) {
    return settings(workers, min, max).stoppingBy((dir, a) -> {
      stops.add(dir);
      answer = a;
    }, "hdfs:///out/checkpoints");
  }

  private WorkerFleet runningWithStopResume(int workers, int min, int max) {
    return runningWithStopResume(stopResume(workers, min, max));
  }

  private WorkerFleet runningWithStopResume(FleetSettings.Builder settings) {
    FleetSettings built = settings.build();
    int workers = built.targetWorkers();
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, built);
    fleet.start();
    List<WorkerContainer> cs = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      cs.add(c("c" + i, "h1"));
    }
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(workers);
    requested.clear();
    launched.clear();
    return fleet;
  }

  @Test
  void stopResumeStopsEveryWorkerAndRelaunchesTheNewSizeFromTheCheckpointOnlyWhenAllHaveExited() throws Exception {
    WorkerFleet fleet = runningWithStopResume(2, 1, 4);
    fleet.scaleOut(1, ScaleMode.STOP_RESUME);
    assertEquals(List.of("hdfs:///out/checkpoints/restart-1"), stops);
    assertTrue(fleet.status().scaling());
    assertEquals(3, fleet.status().targetWorkers());
    assertTrue(requested.isEmpty(), "nothing new while the old workers still hold their GPUs");
    answer.accepted(40);

    fleet.onContainerCompleted("c1", 0, "");
    assertTrue(requested.isEmpty());
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase(), "a stopped worker's exit 0 is not the end");
    fleet.onContainerCompleted("c2", 0, "");
    assertEquals(List.of(3), requested);

    fleet.onContainersAllocated(List.of(c("c3", "h1"), c("c4", "h1"), c("c5", "h2")));
    assertEquals(List.of("c3", "c4", "c5"), List.copyOf(launched.keySet()));
    for (WorkerLaunch l : launched.values()) {
      assertEquals("hdfs:///out/checkpoints/restart-1", l.env().get(WorkerEnv.RESTORE_FROM));
      assertEquals("3", l.env().get(WorkerEnv.FIRST_RING_WORKERS));
    }
    List.of("c3", "c4", "c5").forEach(fleet::onContainerStarted);
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());

    // The next change gets its own checkpoint, and later plain launches restore nothing.
    fleet.scaleIn(1, List.of(), ScaleMode.STOP_RESUME);
    assertEquals("hdfs:///out/checkpoints/restart-2", stops.get(1));
    assertEquals(2, fleet.status().targetWorkers());
  }

  @Test
  void aStopWhoseLeaderFailedBeforeItsCheckpointRestartsFromTheJobsNewestEarlierCheckpoint() throws Exception {
    WorkerFleet fleet = runningWithStopResume(stopResume(2, 1, 4).toleratingWorkerFailures(3)
        .restartingFrom(dir -> Optional.of("hdfs:///out/checkpoints/periodic/ckpt-00000000000000000500")));
    fleet.scaleOut(1, ScaleMode.STOP_RESUME);
    answer.accepted(40);
    // The leader runs out of memory writing the stop's model; the other worker stops as asked.
    fleet.onContainerCompleted("c1", 1, "java.lang.OutOfMemoryError: Java heap space");
    fleet.onContainerCompleted("c2", 0, "");
    assertEquals(List.of(3), requested);

    fleet.onContainersAllocated(List.of(c("c3", "h1"), c("c4", "h1"), c("c5", "h2")));
    for (WorkerLaunch l : launched.values()) {
      assertEquals("hdfs:///out/checkpoints/periodic/ckpt-00000000000000000500", l.env().get(WorkerEnv.RESTORE_FROM));
    }
    String diagnostics = fleet.status().diagnostics();
    assertTrue(diagnostics.contains("no checkpoint was written in hdfs:///out/checkpoints/restart-1"), diagnostics);
  }

  @Test
  void aStopThatLeftNoCheckpointInAJobWithoutEarlierOnesFailsTheJobInsteadOfLaunchingWorkersThatCannotStart()
      throws Exception {
    List<String> asked = new ArrayList<>();
    WorkerFleet fleet = runningWithStopResume(stopResume(2, 1, 4).toleratingWorkerFailures(3)
        .restartingFrom(dir -> {
          asked.add(dir);
          return Optional.empty();
        }));
    fleet.scaleIn(1, List.of(), ScaleMode.STOP_RESUME);
    answer.accepted(40);
    fleet.onContainerCompleted("c2", 0, "");
    assertTrue(asked.isEmpty(), "asked only once every worker has exited");
    fleet.onContainerCompleted("c1", 1, "java.lang.OutOfMemoryError: Java heap space");

    assertEquals(List.of("hdfs:///out/checkpoints/restart-1"), asked);
    assertTrue(requested.isEmpty(), "no worker is started without a model to start from");
    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("no checkpoint was written in hdfs:///out/checkpoints/restart-1"
        + " and the job has no earlier one"), outcome.diagnostics());
  }

  @Test
  void aJobResumedFromACheckpointStartsItsFirstWorkersFromItAndNoLaterOnes() throws Exception {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED,
        settings(2, 1, 4).startingFrom("hdfs:///old/checkpoints/periodic/ckpt-00000000000000001000").build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h2")));
    for (WorkerLaunch l : launched.values()) {
      assertEquals("hdfs:///old/checkpoints/periodic/ckpt-00000000000000001000", l.env().get(WorkerEnv.RESTORE_FROM));
      assertFalse(l.env().containsKey(WorkerEnv.FIRST_RING_WORKERS), "the job's own size");
    }
    List.of("c1", "c2").forEach(fleet::onContainerStarted);
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());

    // A newcomer joins the running job: the ring hands it the model.
    fleet.scaleOut(1, ScaleMode.EDL);
    fleet.onContainersAllocated(List.of(c("c3", "h1")));
    assertEquals(java.util.Map.of(), launched.get("c3").env());
  }

  @Test
  void stopResumeTheLeaderRefusesLeavesTheJobAsItWas() throws Exception {
    WorkerFleet fleet = runningWithStopResume(2, 1, 4);
    fleet.scaleIn(1, List.of(), ScaleMode.STOP_RESUME);
    answer.refused(new IllegalStateException("a scale change is pending"));
    assertEquals(2, fleet.status().targetWorkers());
    assertFalse(fleet.status().scaling());
    assertTrue(fleet.status().diagnostics().contains("did not happen"), fleet.status().diagnostics());
    fleet.onContainerCompleted("c1", 0, "");
    assertEquals(WorkerFleet.Phase.FINISHING, fleet.status().phase(), "exit 0 means finished again");
  }

  @Test
  void stopResumeRefusalsChangeNothing() throws Exception {
    WorkerFleet fleet = runningWithStopResume(2, 1, 4);
    FleetRefusal named = assertThrows(FleetRefusal.class, () -> fleet.scaleIn(0, List.of("c1"), ScaleMode.STOP_RESUME));
    assertEquals("containerIds", named.field());
    FleetRefusal below = assertThrows(FleetRefusal.class, () -> fleet.scaleIn(2, List.of(), ScaleMode.STOP_RESUME));
    assertEquals("count", below.field());
    FleetRefusal above = assertThrows(FleetRefusal.class, () -> fleet.scaleOut(3, ScaleMode.STOP_RESUME));
    assertEquals("count", above.field());
    assertTrue(stops.isEmpty());
    assertFalse(fleet.status().scaling());

    WorkerFleet noCheckpoints = running(2, 1, 4);
    FleetRefusal mode = assertThrows(FleetRefusal.class, () -> noCheckpoints.scaleOut(1, ScaleMode.STOP_RESUME));
    assertEquals("mode", mode.field());
    assertEquals(2, noCheckpoints.status().targetWorkers());
  }

  @Test
  void scaleInByCountRemovesTheNewestAndALeaverExitingZeroIsACompletedScaleIn() throws Exception {
    WorkerFleet fleet = running(4, 2, 4);
    fleet.scaleIn(2, List.of(), ScaleMode.EDL);
    assertEquals(List.of(List.of("c4", "c3")), removal.asked);
    assertEquals(2, fleet.status().targetWorkers());
    assertTrue(fleet.status().scaling());
    removal.answers.accepted("c4", 40);
    removal.answers.accepted("c3", 40);

    fleet.onContainerCompleted("c4", 0, "");
    assertTrue(fleet.status().diagnostics().contains("c4 on h2 left the job"), fleet.status().diagnostics());
    fleet.onContainerCompleted("c3", 0, "");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase(), "not training finished");
    assertFalse(fleet.outcome().isDone());
    assertEquals(List.of("c1", "c2"), fleet.status().containers());
    assertTrue(fleet.status().scaling(), "until the leader reports the smaller ring");
    fleet.onProgressReport(2);
    assertFalse(fleet.status().scaling());
    assertTrue(requested.isEmpty(), "nothing replaced");
    assertTrue(released.isEmpty(), "leavers exit by themselves");

    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    assertTrue(fleet.outcome().getNow(null).succeeded());
    assertTrue(fleet.outcome().getNow(null).diagnostics().contains("all 2 workers"));
  }

  @Test
  void scaleInOfNamedContainersAndItsErrorsChangeNothing() throws Exception {
    WorkerFleet fleet = running(3, 2, 4);
    FleetStatus before = fleet.status();

    FleetRefusal unknown = assertThrows(FleetRefusal.class, () -> fleet.scaleIn(0, List.of("c2", "c9"), ScaleMode.EDL));
    assertEquals("containerIds", unknown.field());
    assertEquals("c9", unknown.value());
    FleetRefusal both = assertThrows(FleetRefusal.class, () -> fleet.scaleIn(1, List.of("c2"), ScaleMode.EDL));
    assertEquals("containerIds", both.field());
    FleetRefusal neither = assertThrows(FleetRefusal.class, () -> fleet.scaleIn(0, List.of(), ScaleMode.EDL));
    assertEquals("count", neither.field());
    FleetRefusal belowMin = assertThrows(FleetRefusal.class, () -> fleet.scaleIn(2, List.of(), ScaleMode.EDL));
    assertEquals("count", belowMin.field());
    assertEquals("2", belowMin.value());
    assertTrue(belowMin.getMessage().contains("min-workers=2"), belowMin.getMessage());
    FleetRefusal namedBelowMin = assertThrows(FleetRefusal.class,
        () -> fleet.scaleIn(0, List.of("c1", "c3"), ScaleMode.EDL));
    assertEquals("containerIds", namedBelowMin.field());
    assertEquals(before, fleet.status());
    assertTrue(removal.asked.isEmpty());

    fleet.scaleIn(0, List.of("c1"), ScaleMode.EDL);
    assertEquals(List.of(List.of("c1")), removal.asked);
    assertEquals(2, fleet.status().targetWorkers());
  }

  @Test
  void aWorkerNotLeavingThatExitsZeroStillMeansTrainingFinished() throws Exception {
    WorkerFleet fleet = running(3, 1, 4);
    fleet.scaleIn(1, List.of(), ScaleMode.EDL);
    fleet.onContainerCompleted("c1", 0, "");
    assertEquals(WorkerFleet.Phase.FINISHING, fleet.status().phase());
    fleet.onContainerCompleted("c3", 0, ""); // the leaver, at a step the job did not outlive
    fleet.onContainerCompleted("c2", 0, "");
    JobOutcome outcome = fleet.outcome().getNow(null);
    assertTrue(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("all 2 workers"), outcome.diagnostics());
  }

  @Test
  void withNoFailuresAllowedALeaverThatExitsNonZeroFailsTheJobSayingItWasLeaving() throws Exception {
    WorkerFleet fleet = running(3, 1, 4);
    fleet.scaleIn(0, List.of("c2"), ScaleMode.EDL);
    fleet.onContainerCompleted("c2", 1, "EDL worker c2 failed: broken ring");
    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("c2 on h1"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("(leaving the job: SCALE_IN)"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("broken ring"), outcome.diagnostics());
    assertEquals(List.of("c1", "c3"), released);
  }

  @Test
  void aLeaveTheLeaderRefusesPutsTheWorkerBackIntoTheTarget() throws Exception {
    WorkerFleet fleet = running(3, 1, 4);
    fleet.scaleIn(1, List.of(), ScaleMode.EDL);
    assertEquals(2, fleet.status().targetWorkers());
    removal.answers.refused("c3", new EdlError("workerId=c3: is not a member"));
    assertEquals(3, fleet.status().targetWorkers());
    assertTrue(fleet.status().diagnostics().contains("c3 stays"), fleet.status().diagnostics());
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());
    fleet.scaleIn(0, List.of("c3"), ScaleMode.EDL);
    assertEquals(List.of(List.of("c3"), List.of("c3")), removal.asked);
  }

  /**
   * 3 workers at max-workers=3, two of them on h1: the leader is told first, the containers on h3
   * are requested only once it holds the leave, and the change lands when the old ones have left
   * and the leader reports the ring at 3 again. The ring never runs above the target, so the
   * migration needs no headroom below max-workers.
   */
  @Test
  void migrationAnnouncesTheReplacementThenStartsNewcomersPinnedToTheTargetHost() throws Exception {
    WorkerFleet fleet = running(3, 1, 3);
    fleet.migrate("h1", "h3");
    assertEquals(List.of(new TestingWorkerRemoval.Replacement(List.of("c1", "c2"), 2)), removal.replacements);
    assertTrue(pinnedTo.isEmpty(), "nothing requested before the leader holds the leave");
    assertTrue(removal.asked.isEmpty(), "no separate leave");
    assertTrue(fleet.status().scaling());
    assertEquals(3, fleet.status().targetWorkers());

    removal.replacementAnswer.accepted(-1);
    assertEquals(List.of("h3", "h3"), pinnedTo);
    assertTrue(requested.isEmpty(), "no unpinned request");
    fleet.onContainersAllocated(List.of(c("c4", "h3"), c("c5", "h3")));
    assertEquals(List.of("c4", "c5"), List.copyOf(launched.keySet()));
    assertEquals(List.of(0, 1), launched.get("c4").gpuIndices());
    fleet.onContainerStarted("c4");
    fleet.onContainerStarted("c5");
    fleet.onProgressReport(3);
    assertTrue(fleet.status().scaling(), "the old workers have not left yet");

    // The one switch: the leavers exit 0 at its step; the ring is 3 before and after.
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    assertTrue(fleet.status().diagnostics().contains("MIGRATION"), fleet.status().diagnostics());
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());
    assertEquals(List.of("c3", "c4", "c5"), fleet.status().containers());
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertTrue(released.isEmpty());
    assertTrue(removal.asked.isEmpty());
  }

  /**
   * A migration keeps the ring's size, so the old ring's report (sent after the leavers exited,
   * before the new leader's first) shows the target too: found on the multi-host cluster, where
   * the AM called a leader's migration complete on its last report of the old ring. It lands on a
   * report of the ring without its leavers.
   */
  @Test
  void aMigrationLandsOnTheNewRingsReportNotOnTheOldRingOfTheSameSize() throws Exception {
    WorkerFleet fleet = running(3, 1, 3);
    List<String> oldRing = List.of("c1", "c2", "c3");
    fleet.onProgressReport(new LeaderReport(3, Optional.of(oldRing), 1));
    fleet.migrate("h1", "h3");
    removal.replacementAnswer.accepted(-1);
    fleet.onContainersAllocated(List.of(c("c4", "h3"), c("c5", "h3")));
    fleet.onContainerStarted("c4");
    fleet.onContainerStarted("c5");
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    assertTrue(fleet.status().scaling(), "the old ring's last report, of the same size, is not the migration");
    fleet.onProgressReport(new LeaderReport(3, Optional.of(oldRing), 1));
    assertTrue(fleet.status().scaling(), "nor is another report of the old ring");
    fleet.onProgressReport(new LeaderReport(3, Optional.of(List.of("c3", "c4", "c5")), 2));
    assertFalse(fleet.status().scaling());
  }

  /** A replacement the leader refuses ends the migration: nothing requested, nobody leaves. */
  @Test
  void aRefusedReplacementChangesNothing() throws Exception {
    WorkerFleet fleet = running(3, 1, 3);
    fleet.migrate("h1", "h3");
    removal.replacementAnswer.refused(new EdlError("leavers=c1,c2: the job stops for a restart"));
    assertFalse(fleet.status().scaling());
    assertEquals(3, fleet.status().targetWorkers());
    assertTrue(fleet.status().diagnostics().contains("did not accept"), fleet.status().diagnostics());
    assertTrue(pinnedTo.isEmpty());
    removal.replacementAnswer.accepted(-1);
    assertTrue(pinnedTo.isEmpty(), "a late answer for an ended migration is ignored");
    // c1 and c2 count as running workers again: a later scale-in may pick them.
    fleet.scaleIn(0, List.of("c1"), ScaleMode.EDL);
    assertEquals(List.of(List.of("c1")), removal.asked);
  }

  @Test
  void migrationErrorsNameTheHostAndChangeNothing() throws Exception {
    WorkerFleet fleet = running(3, 1, 4);
    FleetStatus before = fleet.status();
    FleetRefusal none = assertThrows(FleetRefusal.class, () -> fleet.migrate("h9", "h3"));
    assertEquals("fromHost", none.field());
    assertEquals("h9", none.value());
    FleetRefusal same = assertThrows(FleetRefusal.class, () -> fleet.migrate("h1", "h1"));
    assertEquals("toHost", same.field());
    FleetRefusal unknown = assertThrows(FleetRefusal.class, () -> fleet.migrate("h2", "nowhere"));
    assertEquals("toHost", unknown.field());
    assertEquals("nowhere", unknown.value());
    WorkerFleet oneHost = running(2, 1, 4);
    FleetStatus oneHostBefore = oneHost.status();
    FleetRefusal everyone = assertThrows(FleetRefusal.class, () -> oneHost.migrate("h1", "h3"));
    assertEquals("fromHost", everyone.field());
    assertEquals("h1", everyone.value());
    assertTrue(everyone.getMessage().contains("one must stay"), everyone.getMessage());
    assertEquals(before, fleet.status());
    assertEquals(oneHostBefore, oneHost.status());
    assertTrue(pinnedTo.isEmpty() && removal.asked.isEmpty() && removal.replacements.isEmpty());
  }

  @Test
  void aNewcomerThatNeverJoinedIsReleasedWhenTrainingFinishes() throws Exception {
    WorkerFleet fleet = running(2, 1, 3);
    fleet.scaleOut(1, ScaleMode.EDL);
    fleet.onContainersAllocated(List.of(c("c3", "h2")));
    fleet.onContainerStarted("c3");
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    assertEquals(List.of("c3"), released);
    JobOutcome outcome = fleet.outcome().getNow(null);
    assertTrue(outcome.succeeded());
    fleet.onContainerCompleted("c3", -100, "Container released by application");
    assertEquals(outcome, fleet.outcome().getNow(null));
  }

  @Test
  void aNewAttemptAdoptsTheRunningWorkersWithTheirGpusAndRestartsNone() throws Exception {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, removal, RESOURCE, 2, 1, 4);
    Map<WorkerContainer, List<Integer>> running = new LinkedHashMap<>();
    running.put(c("c1", "h1"), List.of(0, 1));
    running.put(c("c2", "h1"), List.of(2, 3));
    running.put(c("c3", "h2"), List.of(0, 1));
    fleet.adopt(running);

    FleetStatus status = fleet.status();
    assertEquals(WorkerFleet.Phase.RUNNING, status.phase());
    assertEquals(List.of("c1", "c2", "c3"), status.containers());
    assertEquals(3, status.targetWorkers(), "a scale-out the old attempt made counts");
    assertTrue(requested.isEmpty(), "nothing requested: " + requested);
    assertTrue(launched.isEmpty(), "nothing relaunched: " + launched);

    // The adopted workers' devices stay theirs: a newcomer on h1 gets the next free ones.
    fleet.onProgressReport(3);
    fleet.scaleOut(1, ScaleMode.EDL);
    fleet.onContainersAllocated(List.of(c("c4", "h1")));
    assertEquals(List.of(4, 5), launched.get("c4").gpuIndices());

    // An adopted worker's end is an ordinary completion.
    fleet.onContainerStarted("c4");
    for (String id : List.of("c1", "c2", "c3", "c4")) {
      fleet.onContainerCompleted(id, 0, "");
    }
    assertTrue(fleet.outcome().getNow(null).succeeded());
  }

  @Test
  void adoptingFewerThanMinWorkersRequestsTheMissingOnesAndAdoptingNoneIsAFreshStart() {
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, removal, RESOURCE, 3, 2, 4);
    fleet.adopt(Map.of(c("c1", "h1"), List.of(0, 1)));
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertEquals(2, fleet.status().targetWorkers());
    assertEquals(List.of(1), requested);

    WorkerFleet fresh = new WorkerFleet(driver, VERIFIED, removal, RESOURCE, 3, 2, 4);
    fresh.adopt(Map.of());
    assertEquals(WorkerFleet.Phase.STARTING, fresh.status().phase());
    assertEquals(List.of(1, 3), requested);
  }

  @Test
  void aWorkerTheLeaderRemovedOnItsOwnIsADepartureNotTrainingFinished() throws Exception {
    WorkerFleet fleet = running(4, 2, 4);
    fleet.onContainerCompleted("c3", WorkerEnv.EXIT_LEFT, "Exception from container-launch");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase(), "training goes on");
    assertFalse(fleet.outcome().isDone());
    assertEquals(3, fleet.status().targetWorkers());
    assertEquals(List.of("c1", "c2", "c4"), fleet.status().containers());
    assertTrue(fleet.status().diagnostics().contains("c3 on h2 was removed by the leader"),
        fleet.status().diagnostics());
    assertTrue(requested.isEmpty(), "not replaced unless the job asks for it");
    assertTrue(fleet.status().scaling(), "until the leader reports the smaller ring");
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());

    // The next change is taken as usual, and the job still ends when every worker exits 0.
    fleet.scaleIn(0, List.of("c4"), ScaleMode.EDL);
    assertEquals(List.of(List.of("c4")), removal.asked);
    removal.answers.accepted("c4", 90);
    fleet.onContainerCompleted("c4", WorkerEnv.EXIT_LEFT, "");
    fleet.onProgressReport(2);
    fleet.onContainerCompleted("c1", 0, "");
    assertEquals(WorkerFleet.Phase.FINISHING, fleet.status().phase());
    fleet.onContainerCompleted("c2", 0, "");
    assertTrue(fleet.outcome().getNow(null).succeeded());
    assertTrue(fleet.outcome().getNow(null).diagnostics().contains("all 2 workers"));
  }

  @Test
  void withReplacementAWorkerTheLeaderRemovedGetsOneNewContainer() throws Exception {
    WorkerFleet fleet = running(settings(3, 1, 3).replaceRemovedWorkers(true));
    fleet.onContainerCompleted("c2", WorkerEnv.EXIT_LEFT, "");
    assertEquals(3, fleet.status().targetWorkers());
    assertEquals(List.of(1), requested);
    assertTrue(fleet.status().diagnostics().contains("requesting a replacement"), fleet.status().diagnostics());
    assertTrue(fleet.status().scaling());

    fleet.onContainersAllocated(List.of(c("c5", "h3")));
    assertTrue(launched.containsKey("c5"));
    fleet.onContainerStarted("c5");
    fleet.onProgressReport(2);
    assertTrue(fleet.status().scaling(), "the newcomer has not joined the ring yet");
    fleet.onProgressReport(3);
    assertFalse(fleet.status().scaling());
    assertEquals(List.of("c1", "c3", "c5"), fleet.status().containers());
    assertEquals(List.of(1), requested, "one replacement only");
  }

  @Test
  void aWorkerThatLeftAfterTrainingFinishedIsNoReplacementEither() throws Exception {
    WorkerFleet fleet = running(settings(3, 1, 3).replaceRemovedWorkers(true));
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c3", WorkerEnv.EXIT_LEFT, "");
    assertTrue(requested.isEmpty());
    fleet.onContainerCompleted("c2", 0, "");
    assertTrue(fleet.outcome().getNow(null).succeeded());
  }

  // ---- the job's output ----------------------------------------------------------------------

  /** Counts the checks and answers with {@link #outputProblem}. */
  private int outputChecks;
  private Optional<String> outputProblem = Optional.empty();
  private final OutputCheck countedCheck = () -> {
    outputChecks++;
    return outputProblem;
  };

  @Test
  void theJobSucceedsOnceTheLastWorkerExitedAndTheOutputVerifiesCheckedOnce() throws Exception {
    WorkerFleet fleet = new WorkerFleet(driver, countedCheck, removal, RESOURCE, 2, 1, 3);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onContainerCompleted("c1", 0, "");
    assertEquals(0, outputChecks, "one worker still runs: training may not have written the model yet");
    fleet.onContainerCompleted("c2", 0, "");
    assertEquals(1, outputChecks);
    JobOutcome outcome = fleet.outcome().getNow(null);
    assertTrue(outcome.succeeded(), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("all 2 workers finished training"), outcome.diagnostics());
  }

  @Test
  void everyWorkerExitingZeroWithoutAVerifiedOutputFailsTheJobSayingWhatIsMissing() {
    outputProblem = Optional.of("model.bin is missing in hdfs://nn:8020/out");
    WorkerFleet fleet = new WorkerFleet(driver, countedCheck, RESOURCE, 2);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertEquals(WorkerFleet.Phase.FAILED, fleet.status().phase());
    assertTrue(outcome.diagnostics().contains("training finished (all 2 workers exited 0) but the output does not"
        + " verify: model.bin is missing in hdfs://nn:8020/out"), outcome.diagnostics());
    assertEquals(1, outputChecks);
    assertTrue(released.isEmpty(), "every container had exited");
  }

  @Test
  void aCheckThatThrowsFailsTheJobNamingTheError() {
    WorkerFleet fleet = new WorkerFleet(driver, () -> {
      throw new IllegalStateException("no FileSystem for scheme hdfs");
    }, RESOURCE, 1);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1")));
    fleet.onContainerStarted("c1");
    fleet.onContainerCompleted("c1", 0, "");
    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("no FileSystem for scheme hdfs"), outcome.diagnostics());
  }

  @Test
  void neitherAStopResumeRelaunchNorAScaleChangeChecksTheOutput() throws Exception {
    WorkerFleet fleet = new WorkerFleet(driver, countedCheck, stopResume(2, 1, 4).build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    List.of("c1", "c2").forEach(fleet::onContainerStarted);
    fleet.onProgressReport(2);

    // Every worker exits 0 for the stop: a relaunch, not the end of training.
    fleet.scaleOut(1, ScaleMode.STOP_RESUME);
    answer.accepted(10);
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    fleet.onContainersAllocated(List.of(c("c3", "h1"), c("c4", "h1"), c("c5", "h2")));
    List.of("c3", "c4", "c5").forEach(fleet::onContainerStarted);
    fleet.onProgressReport(3);
    // A scale-in's leaver exits 0 too.
    fleet.scaleIn(0, List.of("c5"), ScaleMode.EDL);
    fleet.onContainerCompleted("c5", 0, "");
    fleet.onProgressReport(2);
    assertFalse(fleet.status().scaling());
    assertEquals(0, outputChecks);

    fleet.onContainerCompleted("c3", 0, "");
    fleet.onContainerCompleted("c4", 0, "");
    assertEquals(1, outputChecks);
    assertTrue(fleet.outcome().getNow(null).succeeded());
  }

  private static WorkerContainer c(String id, String host) {
    return new WorkerContainer(id, host);
  }
}
