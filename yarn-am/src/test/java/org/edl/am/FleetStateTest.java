package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.edl.am.WorkerFleet.Phase;
import org.junit.jupiter.api.Test;

/** The fleet's phase moves only forward, through one method; the change under way through three. */
class FleetStateTest {
  private static FleetState at(Phase phase) {
    FleetState state = new FleetState(new TestingContainerDriver(),
        FleetSettings.of(new WorkerResource(512, 1, 1), 2, 1, 3).build());
    for (Phase p : List.of(Phase.RUNNING, Phase.FINISHING)) {
      if (phase.ordinal() >= p.ordinal() && phase != Phase.SUCCEEDED && phase != Phase.FAILED) {
        state.moveTo(p);
      }
    }
    if (phase == Phase.SUCCEEDED || phase == Phase.FAILED) {
      state.moveTo(phase);
    }
    assertEquals(phase, state.phase());
    return state;
  }

  @Test
  void thePhaseGoesForwardOnlyAndEndsOnce() {
    at(Phase.STARTING).moveTo(Phase.FINISHING); // a worker finished before all had started
    at(Phase.RUNNING).moveTo(Phase.FAILED);
    at(Phase.FINISHING).moveTo(Phase.FINISHING); // each worker that finishes says so again
    for (Phase end : List.of(Phase.SUCCEEDED, Phase.FAILED)) {
      for (Phase next : Phase.values()) {
        if (next != end) {
          assertThrows(IllegalStateException.class, () -> at(end).moveTo(next), end + " -> " + next);
        }
      }
    }
    assertThrows(IllegalStateException.class, () -> at(Phase.RUNNING).moveTo(Phase.STARTING));
    assertThrows(IllegalStateException.class, () -> at(Phase.FINISHING).moveTo(Phase.RUNNING));
  }

  @Test
  void aChangeGoesOnOnlyWhileOneIsUnderWay() {
    FleetState state = at(Phase.RUNNING);
    FleetChange out = new FleetChange.ScaleOut(1, FleetChange.Shown.NOTHING);
    assertThrows(IllegalStateException.class, () -> state.evolve(out), "nothing began");
    int number = state.begin(out);
    state.evolve(new FleetChange.ScaleOut(2, FleetChange.Shown.NOTHING));
    assertEquals(2, ((FleetChange.ScaleOut) state.change()).count());
    assertEquals(true, state.isCurrent(number), "going on keeps its number");
    state.end();
    assertEquals(null, state.change());
    assertEquals(false, state.isCurrent(number));
  }
}
