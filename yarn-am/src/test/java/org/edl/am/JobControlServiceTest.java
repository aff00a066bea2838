package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSpec;
import org.edl.testing.Await;
import org.edl.job.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.edl.thrift.ScaleMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint hands every call to the one main thread that owns the fleet, and gives the
 * fleet's refusals back to the caller as they were (field and value intact).
 */
class JobControlServiceTest {
  private static final WorkerResource RESOURCE = new WorkerResource(512, 1, 1);
  /** The job's output verifies: these tests are about the containers. */
  private static final OutputCheck VERIFIED = Optional::empty;

  private final ExecutorService mainThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "am-main"));
  private final TestingWorkerRemoval removal = new TestingWorkerRemoval();
  private WorkerFleet fleet;
  private JobControlService control;

  @BeforeEach
  void runningJobOfTwo() throws Exception {
    JobSpec spec = spec();
    TestingContainerDriver driver = new TestingContainerDriver();
    fleet = new WorkerFleet(driver, VERIFIED, removal, RESOURCE, 2, 1, 3);
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
  void aFailingProgressHookDoesNotKeepTheReportFromTheFleet() throws Exception {
    control = new JobControlService("application_1_0001", spec(), mainThread, fleet, p -> {
      throw new IllegalStateException("a broken hook");
    });
    control.scaleOut(1, ScaleMode.EDL);
    mainThread.submit(() -> {
      fleet.onContainersAllocated(List.of(new WorkerContainer("c3", "h2")));
      fleet.onContainerStarted("c3");
    }).get(10, TimeUnit.SECONDS);
    control.reportProgress(progress(3));
    JobStatus s = control.status();
    assertEquals(JobState.RUNNING, s.getState(), "the fleet heard the leader's report of 3 workers");
    assertEquals(3, s.getProgress().getWorkers());
  }

  @Test
  void aRefusalComesBackAsTheFleetsEdlErrorAndChangesNothing() throws Exception {
    JobStatus before = control.status();
    EdlError e = assertThrows(EdlError.class, () -> control.scaleIn(0, List.of("c7"), ScaleMode.EDL));
    assertEquals("containerIds", e.getField());
    assertEquals("c7", e.getValue());
    EdlError mode = assertThrows(EdlError.class, () -> control.scaleOut(1, ScaleMode.STOP_RESUME));
    assertEquals("mode", mode.getField());
    EdlError profile = assertThrows(EdlError.class, () -> control.profile(1, 4, 20));
    assertEquals("maxWorkers", profile.getField());
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

  /**
   * The AM suggested 0 and 1 on h1 (its own book); c2's worker found 1 taken by another job's and
   * claimed 3. The status shows what the workers hold, the suggestion where one has not said.
   */
  @Test
  void theStatusShowsTheGpusEachWorkerReportsNotTheSuggestion() throws Exception {
    control = new JobControlService("application_1_0001", spec(), mainThread, fleet, p -> {}, ProfileStore.NONE,
        id -> "c2".equals(id) ? Optional.of(List.of(3)) : Optional.empty());
    java.util.Map<String, List<Integer>> gpus = new java.util.HashMap<>();
    control.status().getPlacements().forEach(p -> gpus.put(p.getContainer(), p.getGpus()));
    assertEquals(java.util.Map.of("c1", List.of(0), "c2", List.of(3)), gpus);
  }

  @Test
  void aProfileAnswersWhenItIsDoneStoresItsTableAndRefusesOtherChangesMeanwhile() throws Exception {
    List<ProfileResult> stored = new java.util.concurrent.CopyOnWriteArrayList<>();
    control = new JobControlService("application_1_0001", spec(), mainThread, fleet, p -> {}, r -> {
      stored.add(r);
      return new ProfileStore.Stored("hdfs:/out/profile.csv", "hdfs:/out/profile.png");
    });
    CompletableFuture<ProfileResult> answer = CompletableFuture.supplyAsync(() -> {
      try {
        return control.profile(2, 3, 5);
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    JobStatus scaling = awaitState(JobState.SCALING);
    assertEquals(3, scaling.getTargetWorkers(), "to max first");
    EdlError busy = assertThrows(EdlError.class, () -> control.scaleIn(1, List.of(), ScaleMode.EDL));
    assertEquals("PROFILING", busy.getValue());

    mainThread.submit(() -> {
      fleet.onContainersAllocated(List.of(new WorkerContainer("c3", "h2")));
      fleet.onContainerStarted("c3");
    }).get(10, TimeUnit.SECONDS);
    control.reportProgress(progress(20, 3));
    control.reportProgress(progress(30, 3));
    awaitState(JobState.SCALING); // 3 measured; one worker leaves
    mainThread.submit(() -> fleet.onContainerCompleted("c3", 0, "")).get(10, TimeUnit.SECONDS);
    control.reportProgress(progress(40, 2));
    control.reportProgress(progress(50, 2));

    ProfileResult r = answer.get(30, TimeUnit.SECONDS);
    assertEquals(List.of(3, 2), r.getPoints().stream().map(ProfilePoint::getWorkers).toList());
    assertEquals(List.of(10, 10), r.getPoints().stream().map(ProfilePoint::getBatches).toList());
    assertEquals("hdfs:/out/profile.csv", r.getTablePath());
    assertEquals("hdfs:/out/profile.png", r.getChartPath());
    assertEquals(1, stored.size());
    assertEquals(JobState.RUNNING, control.status().getState());
    assertEquals(2, control.scaleOut(1, ScaleMode.EDL).getTargetWorkers() - 1, "changes allowed again");
  }

  private JobStatus awaitState(JobState state) throws Exception {
    return Await.until("state " + state, control::status, st -> st.getState() == state, Duration.ofSeconds(10));
  }

  private static JobSpec spec() {
    return JobSpec.builder().name("control").model("softmax")
        .data("synthetic:samples=64,features=4,classes=2,seed=1").format("auto").workers(2).minWorkers(1)
        .maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(100).batchSize(16)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(1).backend("cpu").output("out")
        .build();
  }

  @Test
  void theSummarySaysNoLossWasComputedInsteadOfNaN() throws Exception {
    assertEquals("; step 10/100, loss 0.5000", mainThread.submit(control::progressSummary).get(10, TimeUnit.SECONDS));
    JobProgress emulated = progress(2);
    emulated.setLoss(Double.NaN);
    emulated.setFirstLoss(Double.NaN);
    control.reportProgress(emulated);
    assertEquals("; step 10/100, no loss computed", mainThread.submit(control::progressSummary).get(10, TimeUnit.SECONDS));
  }

  private static JobProgress progress(int workers) {
    return progress(10, workers);
  }

  private static JobProgress progress(long step, int workers) {
    return new JobProgress(step, 100, 0.5, 1000, workers);
  }
}
