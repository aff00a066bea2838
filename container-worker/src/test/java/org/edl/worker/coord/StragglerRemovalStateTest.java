package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.junit.jupiter.api.Test;

/** The leader removes a straggler by its own leave, report by report with a fixed clock. */
class StragglerRemovalStateTest {
  private static final Duration T_A = Duration.ofMillis(20);
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static JobSpec spec(int workers, int min, double factor, int batches) {
    return new JobSpec("t", "softmax", "synthetic:samples=64,features=4,classes=3,seed=1", "auto",
        workers, min, workers, 0, 512, 1, 1000, 12, BatchRule.FIXED_GLOBAL, 0.1, 8, 7, "cpu", "", "")
        .withStragglers(factor, batches, false);
  }

  private CoordinatorState running(JobSpec spec) throws EdlError {
    return running(spec, T_A);
  }

  private CoordinatorState running(JobSpec spec, Duration allowance) throws EdlError {
    CoordinatorState s = new CoordinatorState(spec, now::get, allowance, "c1");
    for (int i = 1; i <= spec.workers(); i++) {
      s.register(new WorkerInfo("c" + i, "127.0.0.1", 7000 + i));
    }
    return s;
  }

  /**
   * Every member of the ring running {@code step} reports it: 10 ms of compute, the listed ones
   * slower; every batch time (which includes the all-reduce) is the slowest one's, as in a ring.
   */
  private SyncReply step(CoordinatorState s, long step, Map<String, Double> slow) throws EdlError {
    List<String> ids = (s.scheduled().filter(o -> step > o.getAtStep()).isPresent()
        ? s.scheduled().get().getTopology() : s.topology()).getRing().stream()
        .map(WorkerInfo::getWorkerId).toList();
    double slowest = slow.values().stream().mapToDouble(Double::doubleValue).max().orElse(0.010);
    SyncReply last = null;
    for (String id : ids) {
      SyncReport r = new SyncReport(id, step, 1.0, Math.max(0.010, slowest), 4);
      r.setBatchStart(step * 12);
      r.setComputeSeconds(slow.getOrDefault(id, 0.010));
      last = s.sync(r);
    }
    now.addAndGet(10_000_000L);
    return last;
  }

  @Test
  void aWorkerSlowForTheWindowLeavesAtAFutureStepAndTheEventIsInTheProgress() throws Exception {
    CoordinatorState s = running(spec(4, 1, 1.2, 10));
    Map<String, Double> c3Slow = Map.of("c3", 0.0134);
    for (long step = 0; step < 9; step++) {
      step(s, step, c3Slow);
      assertTrue(s.scheduled().isEmpty(), "nothing before ten slow batches, step " + step);
    }
    SyncReply named = step(s, 9, c3Slow);
    assertEquals(List.of("c3"), s.scheduled().orElseThrow().getLeavers());
    long at = s.scheduled().get().getAtStep();
    assertTrue(at > 9, "a future step: " + at);
    assertTrue(named.isSetPendingTopology() || s.scheduled().isPresent());
    List<String> events = s.progress().getEvents();
    assertEquals(1, events.size());
    assertTrue(events.get(0).contains("c3") && events.get(0).contains("13.4 ms")
        && events.get(0).contains("10.0 ms") && events.get(0).contains("after step " + at), events.get(0));

    for (long step = 10; step <= at; step++) {
      step(s, step, c3Slow);
    }
    assertEquals(List.of("c1", "c2", "c4"), s.topology().getRing().stream().map(WorkerInfo::getWorkerId).toList());
    assertEquals(2, s.topologyVersion());
    assertTrue(s.scheduled().isEmpty());
  }

  @Test
  void theWholeBatchTimeAloneNamesNobody() throws Exception {
    // Without computeSeconds every member reports the ring's (the slowest one's) batch time.
    CoordinatorState s = running(spec(4, 1, 1.2, 3));
    for (long step = 0; step < 20; step++) {
      for (int i = 1; i <= 4; i++) {
        SyncReport r = new SyncReport("c" + i, step, 1.0, 0.0134, 4);
        r.setBatchStart(step * 12);
        s.sync(r);
      }
    }
    assertTrue(s.scheduled().isEmpty());
    assertFalse(s.progress().isSetEvents());
  }

  @Test
  void neverBelowMinWorkersAndOneRemovalAtATime() throws Exception {
    CoordinatorState s = running(spec(4, 2, 1.2, 3));
    Map<String, Double> twoSlow = Map.of("c2", 0.02, "c4", 0.03);
    long step = 0;
    while (s.scheduled().isEmpty()) {
      step(s, step++, twoSlow);
    }
    assertEquals(List.of("c4"), s.scheduled().get().getLeavers(), "the slowest first, alone");
    while (s.topologyVersion() == 1) {
      assertEquals(List.of("c4"), s.scheduled().orElseThrow().getLeavers());
      step(s, step++, twoSlow);
    }
    // c2 kept counting: it is named as soon as the first removal landed.
    step(s, step++, twoSlow);
    assertEquals(List.of("c2"), s.scheduled().orElseThrow().getLeavers());
    while (s.topologyVersion() == 2) {
      step(s, step++, twoSlow);
    }
    assertEquals(2, s.topology().getRingSize(), "min-workers=2");
    // c1 slow now, but the ring is at min-workers: it stays.
    for (int i = 0; i < 20; i++) {
      step(s, step++, Map.of("c1", 0.05));
    }
    assertTrue(s.scheduled().isEmpty());
    assertEquals(2, s.topology().getRingSize());
    assertEquals(2, s.progress().getEventsSize());
  }

  @Test
  void noRemovalWhileAnotherChangeIsPendingAndNoneWhenDetectionIsOff() throws Exception {
    // Switches 10 batches ahead: c4 is slow for longer than the window while c2's leave is pending.
    CoordinatorState s = running(spec(4, 1, 1.2, 3), Duration.ofMillis(100));
    long step = 0;
    step(s, step++, Map.of());
    s.leave("c2");
    assertTrue(s.scheduled().orElseThrow().getAtStep() >= 5);
    while (s.topologyVersion() == 1) {
      assertEquals(List.of("c2"), s.scheduled().orElseThrow().getLeavers());
      assertFalse(s.progress().isSetEvents(), "c4 named while c2's leave is pending");
      step(s, step++, Map.of("c4", 0.05));
    }
    // c4 was slow all along, but it is named only once c2's change has landed.
    while (s.topologyVersion() == 2 && step < 50) {
      step(s, step++, Map.of("c4", 0.05));
    }
    assertEquals(List.of("c1", "c3"), s.topology().getRing().stream().map(WorkerInfo::getWorkerId).toList());
    assertEquals(1, s.progress().getEventsSize());

    CoordinatorState off = running(spec(4, 1, 1.2, 3).withStragglers(0, 3, false));
    for (long i = 0; i < 20; i++) {
      step(off, i, Map.of("c4", 0.05));
    }
    assertTrue(off.scheduled().isEmpty());
  }
}
