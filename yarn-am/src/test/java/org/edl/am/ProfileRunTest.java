package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.JobProgress;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Profiling over a fleet driven by hand: the job goes to max, runs the batches at each size on
 * the way down to min, and the throughput is worked out from the reports and the AM's clock.
 */
class ProfileRunTest {
  private static final WorkerResource RESOURCE = new WorkerResource(512, 1, 1);
  /** The job's output verifies: these tests are about the containers. */
  private static final OutputCheck VERIFIED = Optional::empty;
  private static final long SAMPLES_PER_STEP = 100;

  private final List<Integer> requested = new ArrayList<>();
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
  private final AtomicLong now = new AtomicLong();
  private TestingContainerDriver driver;
  private WorkerFleet fleet;

  @BeforeEach
  void runningJobOfTwo() {
    driver = new TestingContainerDriver();
    driver.onRequest = (n, r) -> requested.add(n);
    fleet = new WorkerFleet(driver, VERIFIED, removal, RESOURCE, 2, 1, 3);
    fleet.start();
    fleet.onContainersAllocated(List.of(new WorkerContainer("c1", "h1"), new WorkerContainer("c2", "h1")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(2);
    requested.clear();
  }

  /**
   * 2 -> 3 first; at 3, 10 steps in 1 s = 1000 samples/s; then 3 -> 2 and 10 steps in 2 s =
   * 500 samples/s; then 2 -> 1 and 20 steps in 5 s = 400 samples/s (the first report that has
   * the 10 batches comes late).
   */
  @Test
  void startsAtMaxAndScalesInOneAtATimeRecordingThroughputPerSize() throws Exception {
    ProfileRun run = ProfileRun.begin(fleet, 1, 3, 1, 3, 10, w -> SAMPLES_PER_STEP, now::get);
    assertEquals(List.of(1), requested, "to max first");
    report(run, 5, 2, 0);
    fleet.onContainersAllocated(List.of(new WorkerContainer("c3", "h2")));
    fleet.onContainerStarted("c3");
    report(run, 8, 2, 0);
    assertTrue(removal.asked.isEmpty(), "nothing measured before the ring has 3");

    report(run, 10, 3, 1_000);
    report(run, 15, 3, 1_500); // not yet 10 steps
    report(run, 20, 3, 2_000);
    assertEquals(List.of(List.of("c3")), removal.asked, "one worker fewer after the batches at 3");

    report(run, 30, 3, 3_000); // the leaver still in the ring: not counted
    fleet.onContainerCompleted("c3", 0, "");
    report(run, 40, 2, 4_000);
    report(run, 50, 2, 6_000);
    assertEquals(2, removal.asked.size());
    removal.answers.accepted("c2", 60);
    fleet.onContainerCompleted("c2", 0, "");
    report(run, 60, 1, 10_000);
    report(run, 65, 1, 11_000);
    assertFalse(run.result().isDone(), "10 steps needed, 5 done");
    report(run, 80, 1, 15_000);

    ProfileResult r = run.result().getNow(null);
    assertEquals(List.of(new ProfilePoint(3, 1000.0, 10), new ProfilePoint(2, 500.0, 10),
        new ProfilePoint(1, 400.0, 20)), r.getPoints());
    assertEquals(15.0, r.getSeconds(), 1e-9);
    assertEquals(1, fleet.status().targetWorkers(), "the job stays at min");
  }

  @Test
  void argumentsOutsideTheJobsLimitsAreRefusedAndChangeNothing() {
    FleetStatus before = fleet.status();
    FleetRefusal low = assertThrows(FleetRefusal.class, () -> ProfileRun.begin(fleet, 2, 3, 1, 3, 10, w -> 1, now::get));
    assertEquals("minWorkers", low.field());
    FleetRefusal high = assertThrows(FleetRefusal.class, () -> ProfileRun.begin(fleet, 1, 3, 1, 4, 10, w -> 1, now::get));
    assertEquals("maxWorkers", high.field());
    assertEquals("4", high.value());
    FleetRefusal crossed = assertThrows(FleetRefusal.class, () -> ProfileRun.begin(fleet, 1, 3, 3, 2, 10, w -> 1, now::get));
    assertEquals("minWorkers", crossed.field());
    FleetRefusal none = assertThrows(FleetRefusal.class, () -> ProfileRun.begin(fleet, 1, 3, 1, 3, 0, w -> 1, now::get));
    assertEquals("batches", none.field());
    assertEquals(before, fleet.status());
    assertTrue(requested.isEmpty() && removal.asked.isEmpty());
  }

  @Test
  void aJobThatEndsWhileProfilingFailsTheProfileNamingTheState() throws Exception {
    ProfileRun run = ProfileRun.begin(fleet, 1, 3, 2, 2, 10, w -> 1, now::get);
    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    run.jobStopped();
    ExecutionException e = assertThrows(ExecutionException.class, () -> run.result().get());
    FleetRefusal cause = (FleetRefusal) e.getCause();
    assertEquals("state", cause.field());
    assertEquals("SUCCEEDED", cause.value());
  }

  private void report(ProfileRun run, long step, int workers, long millis) {
    now.set(millis * 1_000_000L);
    JobProgress p = new JobProgress(step, 1000, 0.5, 0, workers);
    fleet.onProgressReport(workers);
    run.onProgress(p);
  }
}
