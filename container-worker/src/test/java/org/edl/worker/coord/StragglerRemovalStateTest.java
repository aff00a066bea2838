package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;

/** The leader removes a straggler by its own leave, report by report with a fixed clock. */
class StragglerRemovalStateTest {
  private static final Duration T_A = Duration.ofMillis(20);
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static JobSpec spec(int workers, int min, double factor, int batches) {
    return CoordTesting.spec(workers, min, workers, 1000).toBuilder().stragglers(factor, batches, false).build();
  }

  private CoordinatorState running(JobSpec spec) throws Refused {
    return running(spec, T_A);
  }

  private CoordinatorState running(JobSpec spec, Duration allowance) throws Refused {
    CoordinatorState s = CoordTesting.leading(spec, now::get, allowance, "c1");
    for (int i = 1; i <= spec.scale().workers(); i++) {
      s.register(CoordTesting.member(i));
    }
    return s;
  }

  /**
   * Every member of the ring running {@code step} reports it: 10 ms of compute, the listed ones
   * slower; every batch time (which includes the all-reduce) is the slowest one's, as in a ring.
   */
  private SyncAnswer step(CoordinatorState s, long step, Map<String, Double> slow) throws Refused {
    List<String> ids = (s.scheduled().filter(o -> step > o.atStep()).isPresent()
        ? s.scheduled().get().next() : s.ring()).ids();
    double slowest = slow.values().stream().mapToDouble(Double::doubleValue).max().orElse(0.010);
    SyncAnswer last = null;
    for (String id : ids) {
      last = s.sync(StepReport.of(id, step, 1.0, Math.max(0.010, slowest), 4).batchStart(step * 12)
          .computeSeconds(slow.getOrDefault(id, 0.010)).build());
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
    SyncAnswer named = step(s, 9, c3Slow);
    assertEquals(List.of("c3"), s.scheduled().orElseThrow().leavers());
    long at = s.scheduled().get().atStep();
    assertTrue(at > 9, "a future step: " + at);
    assertTrue(named.pending().isPresent() || s.scheduled().isPresent());
    List<String> events = s.progress().events();
    assertEquals(1, events.size());
    assertTrue(events.get(0).contains("c3") && events.get(0).contains("13.4 ms")
        && events.get(0).contains("10.0 ms") && events.get(0).contains("after step " + at), events.get(0));

    for (long step = 10; step <= at; step++) {
      step(s, step, c3Slow);
    }
    assertEquals(List.of("c1", "c2", "c4"), s.ring().ids());
    assertEquals(2, s.ring().version());
    assertTrue(s.scheduled().isEmpty());
  }

  @Test
  void theWholeBatchTimeAloneNamesNobody() throws Exception {
    // Without computeSeconds every member reports the ring's (the slowest one's) batch time.
    CoordinatorState s = running(spec(4, 1, 1.2, 3));
    for (long step = 0; step < 20; step++) {
      for (int i = 1; i <= 4; i++) {
        s.sync(CoordTesting.report("c" + i, step, 1.0, 0.0134, 4, step * 12));
      }
    }
    assertTrue(s.scheduled().isEmpty());
    assertTrue(s.progress().events().isEmpty());
  }

  @Test
  void neverBelowMinWorkersAndOneRemovalAtATime() throws Exception {
    CoordinatorState s = running(spec(4, 2, 1.2, 3));
    Map<String, Double> twoSlow = Map.of("c2", 0.02, "c4", 0.03);
    long step = 0;
    while (s.scheduled().isEmpty()) {
      step(s, step++, twoSlow);
    }
    assertEquals(List.of("c4"), s.scheduled().get().leavers(), "the slowest first, alone");
    while (s.ring().version() == 1) {
      assertEquals(List.of("c4"), s.scheduled().orElseThrow().leavers());
      step(s, step++, twoSlow);
    }
    // c2 kept counting: it is named as soon as the first removal landed.
    step(s, step++, twoSlow);
    assertEquals(List.of("c2"), s.scheduled().orElseThrow().leavers());
    while (s.ring().version() == 2) {
      step(s, step++, twoSlow);
    }
    assertEquals(2, s.ring().size(), "min-workers=2");
    // c1 slow now, but the ring is at min-workers: it stays.
    for (int i = 0; i < 20; i++) {
      step(s, step++, Map.of("c1", 0.05));
    }
    assertTrue(s.scheduled().isEmpty());
    assertEquals(2, s.ring().size());
    assertEquals(2, s.progress().events().size());
  }

  @Test
  void noRemovalWhileAnotherChangeIsPendingAndNoneWhenDetectionIsOff() throws Exception {
    // Switches 10 batches ahead: c4 is slow for longer than the window while c2's leave is pending.
    CoordinatorState s = running(spec(4, 1, 1.2, 3), Duration.ofMillis(100));
    long step = 0;
    step(s, step++, Map.of());
    s.leave("c2");
    assertTrue(s.scheduled().orElseThrow().atStep() >= 5);
    while (s.ring().version() == 1) {
      assertEquals(List.of("c2"), s.scheduled().orElseThrow().leavers());
      assertTrue(s.progress().events().isEmpty(), "c4 named while c2's leave is pending");
      step(s, step++, Map.of("c4", 0.05));
    }
    // c4 was slow all along, but it is named only once c2's change has landed.
    while (s.ring().version() == 2 && step < 50) {
      step(s, step++, Map.of("c4", 0.05));
    }
    assertEquals(List.of("c1", "c3"), s.ring().ids());
    assertEquals(1, s.progress().events().size());

    CoordinatorState off = running(spec(4, 1, 1.2, 3).toBuilder().stragglers(0, 3, false).build());
    for (long i = 0; i < 20; i++) {
      step(off, i, Map.of("c4", 0.05));
    }
    assertTrue(off.scheduled().isEmpty());
  }
}
