package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobProgress;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.junit.jupiter.api.Test;

class CoordinatorStateTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final CoordinatorState state = new CoordinatorState(spec(3), now::get);

  static JobSpec spec(int workers) {
    return new JobSpec("t", "softmax", "synthetic:samples=64,features=4,classes=3,seed=1", "auto",
        workers, 1, workers, 0, 512, 1, 10, 12, BatchRule.FIXED_GLOBAL, 0.1, 8, 7, "cpu", "", "")
        .validate();
  }

  static WorkerInfo worker(String id, int port) {
    return new WorkerInfo(id, "127.0.0.1", port);
  }

  @Test
  void publishesVersionOneOnlyWhenTheExpectedWorkersRegistered() throws Exception {
    assertEquals(0, state.register(worker("container_03", 7003)).getTopology().getVersion());
    assertEquals(0, state.register(worker("container_01", 7001)).getTopology().getRingSize());
    Topology t = state.register(worker("container_02", 7002)).getTopology();
    assertEquals(1, t.getVersion());
    assertEquals(List.of("container_01", "container_02", "container_03"),
        t.getRing().stream().map(WorkerInfo::getWorkerId).toList(),
        "ring ordered by container id, not by arrival");
  }

  @Test
  void orderDoesNotDependOnArrival() throws Exception {
    CoordinatorState other = new CoordinatorState(spec(3), now::get);
    for (String id : List.of("container_02", "container_03", "container_01")) {
      other.register(worker(id, 7000 + id.charAt(id.length() - 1)));
    }
    for (String id : List.of("container_03", "container_01", "container_02")) {
      state.register(worker(id, 7000 + id.charAt(id.length() - 1)));
    }
    assertEquals(other.topology(), state.topology());
  }

  @Test
  void aRepeatedRegistrationIsHarmlessButAnotherAddressOrAWorkerBeyondMaxIsRefused() throws Exception {
    state.register(worker("container_01", 7001));
    state.register(worker("container_01", 7001));
    assertEquals(1, state.registeredCount());

    EdlError moved = assertThrows(EdlError.class, () -> state.register(worker("container_01", 7999)));
    assertEquals("workerId", moved.getField());
    assertTrue(moved.getMessage().contains("already registered at 127.0.0.1:7001"), moved.getMessage());

    state.register(worker("container_02", 7002));
    state.register(worker("container_03", 7003));
    assertEquals(1, state.register(worker("container_03", 7003)).getTopology().getVersion());
    EdlError extra = assertThrows(EdlError.class, () -> state.register(worker("container_04", 7004)));
    assertTrue(extra.getMessage().contains("max-workers=3"), extra.getMessage());
    assertEquals(1, state.topologyVersion());
  }

  @Test
  void badRegistrationsNameTheField() {
    assertEquals("dataPort", assertThrows(EdlError.class,
        () -> state.register(worker("container_01", 0))).getField());
    assertEquals("workerId", assertThrows(EdlError.class,
        () -> state.register(worker(" ", 7001))).getField());
  }

  @Test
  void aStepCompletesWhenEveryMemberReportedAndItsLossIsSampleWeighted() throws Exception {
    registerAll();
    assertThrows(EdlError.class, () -> state.sync(new SyncReport("stranger", 0, 1, 0.1, 4)));

    state.sync(new SyncReport("container_01", 0, 1.0, 0.1, 4));
    state.sync(new SyncReport("container_02", 0, 2.0, 0.1, 4));
    assertFalse(state.isComplete(0));
    state.sync(new SyncReport("container_02", 0, 2.0, 0.1, 4)); // retried report counts once
    assertFalse(state.isComplete(0));
    state.sync(new SyncReport("container_03", 0, 4.5, 0.1, 2));
    assertTrue(state.isComplete(0));
    // (1*4 + 2*4 + 4.5*2) / 10
    assertEquals(2.1, state.meta().getLastLoss(), 1e-12);
    assertEquals(1, state.meta().getStep());
    assertEquals(10, state.meta().getSamplesSeen());
    assertEquals(2.1, state.firstLoss().orElseThrow(), 1e-12);

    EdlError old = assertThrows(EdlError.class, () -> state.sync(new SyncReport("container_01", 0, 1, 0.1, 4)));
    assertEquals("step", old.getField());
  }

  @Test
  void aLaterStepWaitsForTheEarlierOneAndRatesUseTheInjectedClock() throws Exception {
    registerAll();
    for (String id : List.of("container_01", "container_02", "container_03")) {
      state.sync(new SyncReport(id, 1, 1.0, 0.1, 4)); // step 1 before step 0 is in
    }
    assertFalse(state.isComplete(1));
    state.sync(new SyncReport("container_01", 0, 3.0, 0.1, 4));
    state.sync(new SyncReport("container_02", 0, 3.0, 0.1, 4));
    state.sync(new SyncReport("container_03", 0, 3.0, 0.1, 4));
    assertTrue(state.isComplete(1));
    assertEquals(1.0, state.meta().getLastLoss(), 1e-12);
    assertEquals(3.0, state.firstLoss().orElseThrow(), 1e-12);

    // Steps 0 and 1 completed at the same instant; step 2 half a second later: 24 samples
    // since the first completion, in 0.5 s.
    now.addAndGet(500_000_000L);
    for (String id : List.of("container_01", "container_02", "container_03")) {
      state.sync(new SyncReport(id, 2, 0.5, 0.1, 4));
    }
    assertEquals(48.0, state.recentSamplesPerSecond(), 1e-9);
    assertEquals(48.0, state.overallSamplesPerSecond(), 1e-9);
    JobProgress p = state.progress();
    assertEquals(3, p.getStep());
    assertEquals(10, p.getTotalSteps());
    assertEquals(0.5, p.getLoss(), 1e-12);
    assertEquals(3, p.getWorkers());
    assertEquals(3.0, p.getFirstLoss(), 1e-12);
  }

  private void registerAll() throws EdlError {
    state.register(worker("container_01", 7001));
    state.register(worker("container_02", 7002));
    state.register(worker("container_03", 7003));
  }
}
