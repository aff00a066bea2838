package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import org.edl.job.Growth;
import org.edl.job.ScaleMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fleet carrying out its {@link GrowthPolicy}: asking, joining what YARN grants, giving back. */
class WorkerFleetGrowthTest {
  private static final WorkerResource RESOURCE = new WorkerResource(1024, 1, 1);
  private static final OutputCheck VERIFIED = Optional::empty;

  private final List<Integer> requested = new ArrayList<>();
  private final Map<String, WorkerLaunch> launched = new LinkedHashMap<>();
  private final List<String> released = new ArrayList<>();
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
  private int extrasAsked;
  private int withdrawn;
  private int extrasWithdrawn;
  private long now = 5_000_000;
  private TestingContainerDriver driver;

  @BeforeEach
  void driver() {
    driver = new TestingContainerDriver();
    driver.onRequest = (n, r) -> requested.add(n);
    driver.onRequestExtra = r -> {
      assertEquals(RESOURCE, r);
      extrasAsked++;
    };
    driver.onWithdraw = () -> withdrawn++;
    driver.onWithdrawExtra = () -> extrasWithdrawn++;
    driver.onLaunch = (c, l) -> launched.put(c.id(), l);
    driver.onRelease = released::add;
  }

  private WorkerFleet fleet(int workers, int min, int max, Growth growth) {
    return fleet(workers, min, max, growth, FleetJournal.NONE);
  }

  private WorkerFleet fleet(int workers, int min, int max, Growth growth, FleetJournal journal) {
    return new WorkerFleet(driver, VERIFIED, FleetSettings.of(RESOURCE, workers, min, max).removingBy(removal)
        .growing(new GrowthPolicy(workers, max, growth, ThroughputCurve.UNKNOWN, () -> now)).journaling(journal).build());
  }

  private static WorkerContainer c(String id) {
    return new WorkerContainer(id, "h1");
  }

  private static LeaderReport ring(String... members) {
    return new LeaderReport(members.length, Optional.of(List.of(members)), 1);
  }

  @Test
  void aJobTrainingAtItsMinimumRunsAndAsksForTheRestOneAtATime() {
    WorkerFleet fleet = fleet(4, 2, 4, Growth.OFF);
    fleet.start();
    assertEquals(List.of(4), requested);
    fleet.onContainersAllocated(List.of(c("c1"), c("c2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    assertEquals(WorkerFleet.Phase.STARTING, fleet.status().phase());

    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertFalse(fleet.isScaling());
    assertEquals(2, fleet.status().targetWorkers());
    assertEquals(1, withdrawn, "the two containers YARN has not granted are withdrawn");
    assertEquals(1, extrasAsked, "and asked for again, one at a time");

    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(1, extrasAsked, "one request in flight");

    fleet.onExtraContainerAllocated(c("c3"));
    assertTrue(fleet.isScaling());
    assertEquals(3, fleet.status().targetWorkers());
    assertTrue(launched.containsKey("c3"));
    fleet.onContainerStarted("c3");
    fleet.onProgressReport(ring("c1", "c2", "c3"));
    assertFalse(fleet.isScaling());
    assertEquals(2, extrasAsked, "the next one once the last joined");

    fleet.onExtraContainerAllocated(c("c4"));
    fleet.onContainerStarted("c4");
    fleet.onProgressReport(ring("c1", "c2", "c3", "c4"));
    assertEquals(4, fleet.status().targetWorkers());
    fleet.onProgressReport(ring("c1", "c2", "c3", "c4"));
    assertEquals(2, extrasAsked, "without growth the job stops at the workers it asked for");
  }

  /**
   * The benchmarks' baseline: a stop-resume job takes a granted extra by restarting every worker at
   * the new size, and answers a scheduler's warning by restarting at the smaller one.
   */
  @Test
  void aStopResumeJobGrowsAndGivesBackByRestartingEveryWorker() throws Exception {
    List<String> stops = new ArrayList<>();
    List<JobStopper.Answer> answers = new ArrayList<>();
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, FleetSettings.of(RESOURCE, 2, 2, 4).removingBy(removal)
        .stoppingBy((dir, a) -> {
          stops.add(dir);
          answers.add(a);
        }, "hdfs:///out/checkpoints").growing(new GrowthPolicy(2, 4,
            new Growth(true, Double.NaN, 0, ScaleMode.STOP_RESUME), ThroughputCurve.UNKNOWN, () -> now)).build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1"), c("c2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(1, extrasAsked);

    fleet.onExtraContainerAllocated(c("c3"));
    assertEquals(List.of("c3"), released, "the extra goes back: the relaunch asks for every worker");
    assertEquals(List.of("hdfs:///out/checkpoints/restart-1"), stops);
    assertEquals(3, fleet.status().targetWorkers());
    assertFalse(launched.containsKey("c3"));
    answers.get(0).accepted(40);
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    assertEquals(List.of(2, 3), requested);
    fleet.onContainersAllocated(List.of(c("c4"), c("c5"), c("c6")));
    List.of("c4", "c5", "c6").forEach(fleet::onContainerStarted);
    fleet.onProgressReport(ring("c4", "c5", "c6"));
    assertFalse(fleet.isScaling());
    assertEquals(2, extrasAsked, "steady at 3: the next extra is asked for");

    fleet.onPreemptionRequested(new PreemptionRequest(Set.of("c6"), 0, 0));
    assertEquals(1, extrasWithdrawn, "a give-back withdraws the extra in flight");
    assertEquals(List.of("hdfs:///out/checkpoints/restart-1", "hdfs:///out/checkpoints/restart-2"), stops,
        "the warned container goes with a restart at the smaller size");
    assertEquals(2, fleet.status().targetWorkers());
  }

  @Test
  void launchedWorkersNotYetInTheRingAreAScaleOutOnceTrainingStarts() {
    WorkerFleet fleet = fleet(4, 2, 4, Growth.OFF);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1"), c("c2"), c("c3")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(3, fleet.status().targetWorkers());
    assertTrue(fleet.isScaling(), "c3 joins by itself");
    assertEquals(0, extrasAsked, "nothing asked while c3 joins");
    fleet.onContainerStarted("c3");
    fleet.onProgressReport(ring("c1", "c2", "c3"));
    assertFalse(fleet.isScaling());
    assertEquals(1, extrasAsked);
  }

  @Test
  void anElasticJobGrowsToMaxWorkersAndAnExtraThatArrivesMidChangeIsGivenBack() throws Exception {
    WorkerFleet fleet = fleet(2, 2, 4, new Growth(true, Double.NaN, 60_000));
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1"), c("c2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(1, extrasAsked);

    fleet.onExtraContainerAllocated(c("c3"));
    fleet.onContainerStarted("c3");
    fleet.onProgressReport(ring("c1", "c2", "c3"));
    assertEquals(2, extrasAsked);
    // A user's scale-out takes the job to max while the extra is in flight: it comes back unused.
    fleet.scaleOut(1, ScaleMode.EDL);
    fleet.onExtraContainerAllocated(c("c4"));
    assertEquals(List.of("c4"), released);
    fleet.onContainersAllocated(List.of(c("c5")));
    fleet.onContainerStarted("c5");
    fleet.onProgressReport(ring("c1", "c2", "c3", "c5"));
    fleet.onProgressReport(ring("c1", "c2", "c3", "c5"));
    assertEquals(2, extrasAsked, "at max-workers");
  }

  /**
   * With the curve known ahead, the job asks for every paying extra at once, and those YARN grants
   * while the first one's scale-out is under way join that change: one change from 2 to 4.
   */
  @Test
  void extrasAskedTogetherJoinOneScaleOut() {
    ThroughputCurve curve = n -> n <= 4 ? OptionalDouble.of(100.0 * n) : OptionalDouble.of(400.0);
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, FleetSettings.of(RESOURCE, 2, 2, 6).removingBy(removal)
        .growing(new GrowthPolicy(2, 6, new Growth(true, 0.5, 60_000), curve, () -> now)).build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1"), c("c2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(2, extrasAsked, "3 and 4 pay by the curve, 5 does not: two at once");

    fleet.onExtraContainerAllocated(c("c3"));
    assertTrue(fleet.isScaling());
    fleet.onContainerStarted("c3");
    fleet.onExtraContainerAllocated(c("c4"));
    assertEquals(List.of(), released, "granted mid-change, it joins the change under way");
    assertEquals(4, fleet.status().targetWorkers());
    assertTrue(launched.containsKey("c4"));
    fleet.onContainerStarted("c4");
    fleet.onProgressReport(ring("c1", "c2", "c3"));
    assertTrue(fleet.isScaling(), "the change waits for both newcomers");
    fleet.onProgressReport(ring("c1", "c2", "c3", "c4"));
    assertFalse(fleet.isScaling());
    fleet.onProgressReport(ring("c1", "c2", "c3", "c4"));
    assertEquals(2, extrasAsked, "the fifth does not pay");
  }

  /** An extra whose measured throughput did not pay is given back by a graceful scale-in of the newest worker. */
  @Test
  void anExtraThatLoweredTheMeasuredThroughputLeavesAndIsNotAskedForAgain() {
    Map<Integer, Double> measured = new HashMap<>(Map.of(2, 200.0));
    ThroughputCurve curve = n -> measured.containsKey(n) ? OptionalDouble.of(measured.get(n)) : OptionalDouble.empty();
    WorkerFleet fleet = new WorkerFleet(driver, VERIFIED, FleetSettings.of(RESOURCE, 2, 2, 4).removingBy(removal)
        .growing(new GrowthPolicy(2, 4, new Growth(true, 0.5, 60_000), curve, () -> now)).build());
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1"), c("c2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(1, extrasAsked, "3 workers are not measured yet: it tries");
    fleet.onExtraContainerAllocated(c("c3"));
    fleet.onContainerStarted("c3");
    fleet.onProgressReport(ring("c1", "c2", "c3"));
    assertTrue(removal.asked.isEmpty(), "nothing measured at 3 yet");

    measured.put(3, 180.0);
    fleet.onProgressReport(ring("c1", "c2", "c3"));
    assertEquals(List.of(List.of("c3")), removal.asked, "the newest worker, the extra, leaves");
    assertEquals(2, fleet.status().targetWorkers());
    removal.answers.accepted("c3", 40);
    fleet.onContainerCompleted("c3", 3, "");
    fleet.onProgressReport(ring("c1", "c2"));
    assertFalse(fleet.isScaling());
    now += 60_000;
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(1, extrasAsked, "the curve now knows a third worker does not pay");
  }

  /**
   * A user's {@code edl scale-in} sets what the job asks for: without growth it stays at that size
   * after the hold-off (it used to ask for its submitted size again), and an AM attempt that takes
   * the workers over keeps it.
   */
  @Test
  void aUsersScaleInIsNotUndoneAfterTheHoldOffNorByANewAttempt() throws Exception {
    FleetJournal journal = new TestingFleetJournal();
    WorkerFleet fleet = fleet(3, 2, 4, Growth.OFF, journal);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1"), c("c2"), c("c3")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onContainerStarted("c3");
    fleet.onProgressReport(ring("c1", "c2", "c3"));

    fleet.scaleInByUser(1, List.of(), ScaleMode.EDL);
    assertEquals(List.of("c3"), removal.all());
    fleet.onContainerCompleted("c3", 3, "");
    fleet.onProgressReport(ring("c1", "c2"));
    assertFalse(fleet.isScaling());
    assertEquals(2, journal.last().orElseThrow().requestedWorkers());
    now += 120_000;
    fleet.onProgressReport(ring("c1", "c2"));
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(0, extrasAsked, "the job stays at the 2 workers its user left it with");

    WorkerFleet next = fleet(3, 2, 4, Growth.OFF, journal);
    next.adopt(Map.of(c("c1"), List.of(0), c("c2"), List.of(1)), journal.last());
    next.onProgressReport(ring("c1", "c2"));
    next.onProgressReport(ring("c1", "c2"));
    assertEquals(0, extrasAsked, "nor does the next attempt bring back the submitted 3");

    next.scaleOutByUser(1, ScaleMode.EDL);
    next.onContainersAllocated(List.of(c("c4")));
    next.onContainerStarted("c4");
    next.onProgressReport(ring("c1", "c2", "c4"));
    next.onPreemptionRequested(new PreemptionRequest(Set.of("c4"), 0, 0));
    next.onContainerCompleted("c4", 3, "");
    next.onProgressReport(ring("c1", "c2"));
    now += 120_000;
    next.onProgressReport(ring("c1", "c2"));
    assertEquals(1, extrasAsked, "the user's 3 is asked for again once the scheduler's hold-off has passed");
  }

  @Test
  void aPreemptionWarningShrinksTheJobWithdrawsTheExtraAndHoldsOffBeforeGrowingAgain() {
    WorkerFleet fleet = fleet(2, 2, 4, new Growth(true, Double.NaN, 60_000));
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1"), c("c2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(ring("c1", "c2"));
    fleet.onExtraContainerAllocated(c("c3"));
    fleet.onContainerStarted("c3");
    fleet.onProgressReport(ring("c1", "c2", "c3"));
    assertEquals(2, extrasAsked);

    fleet.onPreemptionRequested(new PreemptionRequest(Set.of("c3"), 0, 0));
    assertEquals(List.of("c3"), removal.all());
    assertEquals(1, extrasWithdrawn, "the extra in flight is withdrawn");
    fleet.onContainerCompleted("c3", 3, "");
    fleet.onProgressReport(ring("c1", "c2"));
    assertFalse(fleet.isScaling());
    assertEquals(2, fleet.status().targetWorkers());
    assertEquals(2, extrasAsked, "holding off");

    now += 60_000;
    fleet.onProgressReport(ring("c1", "c2"));
    assertEquals(3, extrasAsked, "asks again after the hold-off");
  }
  /**
   * The hold-off outlives the AM attempt that started it: it is journaled with the fleet's intent,
   * and a new attempt that takes the workers over asks for no extra before it ends.
   */
  @Test
  void aNewAttemptKeepsTheHoldOffTheOldOneJournaled() throws Exception {
    FleetJournal journal = new TestingFleetJournal();
    Growth growth = new Growth(true, Double.NaN, 60_000);
    WorkerFleet old = fleet(2, 2, 4, growth, journal);
    old.start();
    old.onContainersAllocated(List.of(c("c1"), c("c2")));
    old.onContainerStarted("c1");
    old.onContainerStarted("c2");
    old.onProgressReport(ring("c1", "c2"));
    old.onExtraContainerAllocated(c("c3"));
    old.onContainerStarted("c3");
    old.onProgressReport(ring("c1", "c2", "c3"));
    old.onPreemptionRequested(new PreemptionRequest(Set.of("c3"), 0, 0));
    assertEquals(now + 60_000, journal.last().orElseThrow().holdOffUntilMs());
    old.onContainerCompleted("c3", 3, "");
    old.onProgressReport(ring("c1", "c2"));
    int asked = extrasAsked;

    // The AM dies here; 30 s later the next attempt adopts c1 and c2.
    now += 30_000;
    WorkerFleet next = fleet(2, 2, 4, growth, journal);
    next.adopt(Map.of(c("c1"), List.of(0), c("c2"), List.of(1)), journal.last());
    next.onProgressReport(ring("c1", "c2"));
    next.onProgressReport(ring("c1", "c2"));
    assertEquals(asked, extrasAsked, "still holding off, 30 s before the hold-off ends");
    now += 30_000;
    next.onProgressReport(ring("c1", "c2"));
    assertEquals(asked + 1, extrasAsked, "asks again once the journaled hold-off ended");
  }
}
