package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The coordinator's phases: {@link Lifecycle} takes exactly the transitions {@link Phase} allows. */
class PhaseLifecycleTest {
  private static final Set<Phase> FINAL = EnumSet.of(Phase.HANDED_OVER, Phase.RETIRED, Phase.FENCED);
  private static final Set<Phase> LEADING = EnumSet.of(Phase.FORMING, Phase.RUNNING, Phase.CHANGING,
      Phase.RECOVERING, Phase.STOPPING, Phase.FINISHING, Phase.FINISHED);

  /** A lifecycle moved from CANDIDATE to {@code target} along allowed transitions (shortest path). */
  private static Lifecycle at(Phase target) {
    Map<Phase, Phase> via = new EnumMap<>(Phase.class);
    Deque<Phase> queue = new ArrayDeque<>(List.of(Phase.CANDIDATE));
    via.put(Phase.CANDIDATE, Phase.CANDIDATE);
    while (!queue.isEmpty()) {
      Phase p = queue.poll();
      for (Phase n : Phase.values()) {
        if (p.mayBecome(n) && !via.containsKey(n)) {
          via.put(n, p);
          queue.add(n);
        }
      }
    }
    assertTrue(via.containsKey(target), target + " cannot be reached from CANDIDATE");
    List<Phase> path = new ArrayList<>();
    for (Phase p = target; p != Phase.CANDIDATE; p = via.get(p)) {
      path.add(0, p);
    }
    Lifecycle l = new Lifecycle("test");
    Phase from = Phase.CANDIDATE;
    for (Phase p : path) {
      assertTrue(l.move(from, p));
      from = p;
    }
    assertEquals(target, l.phase());
    return l;
  }

  @Test
  void aLifecycleStartsAsACandidateThatDoesNotLead() {
    Lifecycle l = new Lifecycle("test");
    assertEquals(Phase.CANDIDATE, l.phase());
    assertFalse(l.leading());
  }

  @Test
  void everyTransitionThePhaseAllowsIsAcceptedAndEveryOtherThrows() {
    int allowed = 0;
    for (Phase from : Phase.values()) {
      for (Phase to : Phase.values()) {
        Lifecycle l = at(from);
        if (from == to) {
          assertTrue(l.move(from, to), "staying is no transition: " + from);
          assertEquals(from, l.phase());
        } else if (from.mayBecome(to)) {
          assertTrue(l.move(from, to), from + " -> " + to);
          assertEquals(to, l.phase());
          allowed++;
        } else {
          IllegalStateException e = assertThrows(IllegalStateException.class, () -> l.move(from, to),
              from + " -> " + to);
          assertTrue(e.getMessage().contains(from + " -> " + to), e.getMessage());
          assertEquals(from, l.phase(), "a refused transition changes nothing");
        }
      }
    }
    assertTrue(allowed > 20, "the table allows the protocol's transitions: " + allowed);
  }

  @Test
  void theProtocolsMainPathsAreAllowed() {
    assertTrue(Phase.FORMING.mayBecome(Phase.RUNNING));
    assertTrue(Phase.RUNNING.mayBecome(Phase.CHANGING));
    assertTrue(Phase.CHANGING.mayBecome(Phase.RUNNING));
    assertTrue(Phase.CHANGING.mayBecome(Phase.HANDED_OVER));
    assertTrue(Phase.RUNNING.mayBecome(Phase.RECOVERING));
    assertTrue(Phase.RECOVERING.mayBecome(Phase.RUNNING));
    assertTrue(Phase.RECOVERING.mayBecome(Phase.STOPPING), "a stop scheduled before the failure still stands");
    assertTrue(Phase.RUNNING.mayBecome(Phase.STOPPING));
    assertTrue(Phase.RUNNING.mayBecome(Phase.FINISHING));
    assertTrue(Phase.FINISHING.mayBecome(Phase.FINISHED));
    assertFalse(Phase.FORMING.mayBecome(Phase.RECOVERING), "no ring, nothing to recover");
    assertFalse(Phase.RUNNING.mayBecome(Phase.HANDED_OVER), "a leader hands over only at a switch");
    assertFalse(Phase.FINISHED.mayBecome(Phase.RECOVERING), "the output is written: nothing is redone");
    assertFalse(Phase.RUNNING.mayBecome(Phase.CANDIDATE), "a worker that led never leads again");
  }

  @Test
  void finalPhasesHaveNoExit() {
    for (Phase p : Phase.values()) {
      assertEquals(FINAL.contains(p), p.isFinal(), p.name());
      if (p.isFinal()) {
        for (Phase n : Phase.values()) {
          assertFalse(p.mayBecome(n), p + " -> " + n);
        }
      }
    }
  }

  @Test
  void onlyTheLeadingPhasesLead() {
    for (Phase p : Phase.values()) {
      assertEquals(LEADING.contains(p), p.leading(), p.name());
      assertEquals(LEADING.contains(p), at(p).leading(), p.name());
    }
  }

  @Test
  void fencingEndsInFencedFromEveryPhaseButTheFinalOnes() {
    for (Phase p : Phase.values()) {
      Lifecycle l = at(p);
      l.fence("test");
      Phase expected = p == Phase.HANDED_OVER || p == Phase.RETIRED ? p : Phase.FENCED;
      assertEquals(expected, l.phase(), "fenced in " + p);
      assertFalse(l.leading());
    }
  }

  @Test
  void retiringEndsInRetiredExceptFromTheFinalPhases() {
    for (Phase p : Phase.values()) {
      Lifecycle l = at(p);
      l.retire();
      assertEquals(p.isFinal() ? p : Phase.RETIRED, l.phase(), "retired in " + p);
    }
  }

  @Test
  void aMoveFromAPhaseThatIsNotCurrentAnyMoreFails() {
    Lifecycle l = at(Phase.RUNNING);
    assertFalse(l.move(Phase.FORMING, Phase.RUNNING), "another thread moved it first");
    assertFalse(l.move(Phase.CHANGING, Phase.RUNNING));
    assertEquals(Phase.RUNNING, l.phase());
    assertFalse(l.moveIfAllowed(Phase.HANDED_OVER));
    assertEquals(Phase.RUNNING, l.phase());
    assertTrue(l.moveIfAllowed(Phase.RECOVERING));
    assertTrue(l.moveIfAllowed(Phase.RECOVERING), "already there");
  }

  @Test
  void listenersHearEachChangeOnTheirExecutor() {
    Lifecycle l = new Lifecycle("test");
    List<String> heard = new ArrayList<>();
    l.addListener((from, to) -> heard.add(from + ">" + to), Runnable::run);
    l.move(Phase.CANDIDATE, Phase.FORMING);
    l.move(Phase.FORMING, Phase.RUNNING);
    l.move(Phase.RUNNING, Phase.RUNNING);
    l.fence("lost session");
    l.fence("again");
    assertEquals(List.of("CANDIDATE>FORMING", "FORMING>RUNNING", "RUNNING>FENCED"), heard);
  }
}
