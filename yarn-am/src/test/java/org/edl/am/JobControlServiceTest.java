package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.edl.thrift.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ScaleMode;
import org.edl.worker.job.JobSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint hands every call to the one main thread that owns the fleet, and gives the
 * fleet's refusals back to the caller as they were (field and value intact).
 */
class JobControlServiceTest {
  private static final WorkerResource RESOURCE = new WorkerResource(512, 1, 1);

  private final ExecutorService mainThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "am-main"));
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
  private WorkerFleet fleet;
  private JobControlService control;

  @BeforeEach
  void runningJobOfTwo() throws Exception {
    JobSpec spec = new JobSpec("control", "softmax", "synthetic:samples=64,features=4,classes=2,seed=1",
        "auto", 2, 1, 3, 1, 512, 1, 100, 16, BatchRule.FIXED_GLOBAL, 0.1, 8, 1, "cpu", "out", "").validate();
    TestingContainerDriver driver = new TestingContainerDriver();
    fleet = new WorkerFleet(driver, removal, RESOURCE, 2, 1, 3);
    control = new JobControlService("application_1_0001", spec, mainThread, fleet, p -> {});
    mainThread.submit(() -> {
      fleet.start();
      fleet.onContainersAllocated(List.of(new WorkerContainer("c1", "h1"), new WorkerContainer("c2", "h1")));
      fleet.onContainerStarted("c1");
      fleet.onContainerStarted("c2");
    }).get(10, TimeUnit.SECONDS);
    control.reportProgress(progress(2));
  }

  @AfterEach
  void stop() {
    mainThread.shutdownNow();
  }

  @Test
  void aScaleOutIsScalingUntilTheLeaderReportsTheNewSize() throws Exception {
    JobStatus before = control.status();
    assertEquals(JobState.RUNNING, before.getState());
    assertEquals(2, before.getProgress().getWorkers());

    JobStatus scaling = control.scaleOut(1, ScaleMode.EDL);
    assertEquals(JobState.SCALING, scaling.getState());
    assertEquals(3, scaling.getTargetWorkers());
    assertEquals(3, scaling.getMaxWorkers());

    mainThread.submit(() -> {
      fleet.onContainersAllocated(List.of(new WorkerContainer("c3", "h2")));
      fleet.onContainerStarted("c3");
    }).get(10, TimeUnit.SECONDS);
    assertEquals(JobState.SCALING, control.status().getState());
    control.reportProgress(progress(3));
    assertEquals(JobState.RUNNING, control.status().getState());
  }

  @Test
  void aRefusalComesBackAsTheFleetsEdlErrorAndChangesNothing() throws Exception {
    JobStatus before = control.status();
    EdlError e = assertThrows(EdlError.class, () -> control.scaleIn(0, List.of("c7"), ScaleMode.EDL));
    assertEquals("containerIds", e.getField());
    assertEquals("c7", e.getValue());
    EdlError mode = assertThrows(EdlError.class, () -> control.scaleOut(1, ScaleMode.STOP_RESUME));
    assertEquals("mode", mode.getField());
    EdlError profile = assertThrows(EdlError.class, () -> control.profile(1, 3, 20));
    assertTrue(profile.getMessage().contains("not available yet"), profile.getMessage());
    assertEquals(before, control.status());
    assertTrue(removal.asked.isEmpty());
  }

  @Test
  void aScaleInWithoutIdsPicksByCount() throws Exception {
    JobStatus s = control.scaleIn(1, null, ScaleMode.EDL);
    assertEquals(2 - 1, s.getTargetWorkers());
    assertEquals(List.of(List.of("c2")), removal.asked);
    assertFalse(s.getState() == JobState.RUNNING);
  }

  private static JobProgress progress(int workers) {
    return new JobProgress(10, 100, 0.5, 1000, workers);
  }
}
