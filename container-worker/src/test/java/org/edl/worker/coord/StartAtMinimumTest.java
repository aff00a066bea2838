package org.edl.worker.coord;

import static org.edl.worker.coord.CoordTesting.member;
import static org.edl.worker.coord.CoordTesting.report;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.edl.job.Scale;
import org.junit.jupiter.api.Test;

/** A job starts once min-workers have registered and the gathering window passed; the rest join. */
class StartAtMinimumTest {
  private static final long GATHER_MS = 2_000;
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  /** 4 workers asked, min 2, max 4. */
  private static JobSpec spec(long gatherMs) {
    return CoordTesting.spec(4, 2, 4, 100).toBuilder().gatherMs(gatherMs).build();
  }

  private void advance(long ms) {
    now.addAndGet(Duration.ofMillis(ms).toNanos());
  }

  @Test
  void startsWithTheRegisteredOnesOnceTheMinimumWaitedTheWindow() throws Exception {
    CoordinatorState state = new CoordinatorState(spec(GATHER_MS), now::get);
    state.register(member(1));
    advance(10_000);
    state.tick(now.get());
    assertEquals(Phase.FORMING, state.phase(), "one worker is below the minimum, however long it waits");

    state.register(member(2));
    advance(GATHER_MS - 1);
    state.tick(now.get());
    assertEquals(Phase.FORMING, state.phase(), "the window is not over");
    advance(1);
    state.tick(now.get());
    assertEquals(Phase.RUNNING, state.phase());
    assertEquals(List.of("c1", "c2"), state.ring().ids());
    assertEquals(1, state.ring().version());
    assertTrue(state.progress().events().stream().anyMatch(e -> e.contains("started with 2 of 4 workers")),
        state.progress().events().toString());

    Admission third = state.register(member(3));
    assertTrue(third.pending(), "a worker that registers after the start is a newcomer for a switch");
    assertEquals(List.of("c1", "c2", "c3"), third.ring().ids());
    state.sync(report("c1", 0, 1.0, 0.01, 6));
    state.sync(report("c2", 0, 1.0, 0.01, 6));
    Optional<SwitchPlan> order = state.ready("c3");
    assertTrue(order.isPresent(), "joins by an ordinary switch once ready");
    assertEquals(2, order.get().version());
  }

  @Test
  void aRegistrationOfEveryWorkerFormsAtOnceWithoutWaiting() throws Exception {
    CoordinatorState state = new CoordinatorState(spec(GATHER_MS), now::get);
    for (int i = 1; i <= 4; i++) {
      state.register(member(i));
    }
    assertEquals(Phase.RUNNING, state.phase());
    assertEquals(4, state.ring().size());
  }

  @Test
  void aJobThatWaitsForAllNeverStartsSmall() throws Exception {
    CoordinatorState state = new CoordinatorState(spec(Scale.WAIT_FOR_ALL), now::get);
    for (int i = 1; i <= 3; i++) {
      state.register(member(i));
    }
    advance(600_000);
    state.tick(now.get());
    assertEquals(Phase.FORMING, state.phase());
    state.register(member(4));
    assertEquals(Phase.RUNNING, state.phase());
  }

  @Test
  void aStopResumeRelaunchWaitsForTheSizeItWasGiven() throws Exception {
    CoordinatorState state = new CoordinatorState(spec(0), now::get);
    state.firstRingSize(3);
    state.register(member(1));
    state.register(member(2));
    advance(60_000);
    state.tick(now.get());
    assertEquals(Phase.FORMING, state.phase(), "a relaunch's size was chosen by the change that stopped it");
    state.register(member(3));
    assertEquals(Phase.RUNNING, state.phase());
    assertFalse(state.ring().ids().contains("c4"));
  }
}
