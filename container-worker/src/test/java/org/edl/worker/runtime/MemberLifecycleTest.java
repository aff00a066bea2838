package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The member's phases: the moves the table allows, compare-and-set, and a fence that wins once. */
class MemberLifecycleTest {
  private final MemberLifecycle phases = new MemberLifecycle("w1");

  @Test
  void aMemberJoinsSwitchesAndLeavesAlongTheTable() throws Exception {
    assertEquals(MemberPhase.JOINING, phases.phase());
    assertFalse(phases.phase().inRing());
    for (MemberPhase next : List.of(MemberPhase.TRAINING, MemberPhase.PREPARED, MemberPhase.SWITCH_ORDERED,
        MemberPhase.TRAINING, MemberPhase.LEAVING, MemberPhase.DONE)) {
      phases.to(next);
      assertEquals(next, phases.phase());
    }
    assertTrue(phases.phase().isFinal());
    assertFalse(phases.fence("late"), "a member that left is not fenced afterwards");
    assertNull(phases.fencedBecause());
  }

  @Test
  void aMoveTheTableLacksIsABugNotARace() throws Exception {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> phases.to(MemberPhase.STOPPING));
    assertTrue(e.getMessage().contains("JOINING -> STOPPING"), e.getMessage());
    phases.to(MemberPhase.TRAINING);
    phases.to(MemberPhase.LEAVING);
    assertThrows(IllegalStateException.class, () -> phases.to(MemberPhase.TRAINING),
        "a leaver does not go back to training");
  }

  @Test
  void theHeartbeatPreparesOnlyFromTraining() throws Exception {
    assertFalse(phases.move(MemberPhase.TRAINING, MemberPhase.PREPARED), "still joining");
    phases.to(MemberPhase.TRAINING);
    phases.to(MemberPhase.STOPPING);
    assertFalse(phases.move(MemberPhase.TRAINING, MemberPhase.PREPARED), "stopping: no switch to prepare");
    assertEquals(MemberPhase.STOPPING, phases.phase());
  }

  @Test
  void aRecoveryReturnsToTrainingOrToTheStopStillOrdered() throws Exception {
    phases.to(MemberPhase.TRAINING);
    for (MemberPhase from : EnumSet.of(MemberPhase.TRAINING, MemberPhase.PREPARED, MemberPhase.SWITCH_ORDERED,
        MemberPhase.LEAVING, MemberPhase.STOPPING, MemberPhase.FINISHING)) {
      assertTrue(from.mayBecome(MemberPhase.RECOVERING), from + " -> RECOVERING");
    }
    phases.to(MemberPhase.STOPPING);
    phases.to(MemberPhase.RECOVERING);
    phases.to(MemberPhase.STOPPING);
    phases.to(MemberPhase.DONE);
  }

  @Test
  void theFirstFenceWinsAndEveryPhaseButTheFinalOnesCanBeFenced() throws Exception {
    for (MemberPhase p : MemberPhase.values()) {
      assertEquals(!p.isFinal(), p.mayBecome(MemberPhase.FENCED), p.name());
    }
    phases.to(MemberPhase.TRAINING);
    assertTrue(phases.fence("declared failed by the leader"));
    assertFalse(phases.fence("its session ended"));
    assertEquals(MemberPhase.FENCED, phases.phase());
    assertEquals("declared failed by the leader", phases.fencedBecause());
    FencedException e = assertThrows(FencedException.class, () -> phases.to(MemberPhase.SWITCH_ORDERED),
        "the training thread's next move ends its run");
    assertTrue(e.getMessage().contains("declared failed by the leader"), e.getMessage());
    assertEquals(MemberPhase.FENCED, phases.phase());
  }

  @Test
  void aFenceFromAnotherThreadIsNeverOverwrittenByTheTrainingThread() throws Exception {
    for (int round = 0; round < 200; round++) {
      MemberLifecycle m = new MemberLifecycle("w" + round);
      m.to(MemberPhase.TRAINING);
      CompletableFuture<Boolean> training = CompletableFuture.supplyAsync(() -> {
        try {
          for (int i = 0; i < 50; i++) {
            m.to(MemberPhase.SWITCH_ORDERED);
            m.to(MemberPhase.TRAINING);
          }
          return false;
        } catch (FencedException e) {
          return true;
        }
      });
      m.fence("cut off");
      training.get(10, TimeUnit.SECONDS);
      assertEquals(MemberPhase.FENCED, m.phase());
      assertEquals("cut off", m.fencedBecause());
    }
  }
}
