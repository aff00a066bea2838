package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.edl.am.FleetChange.Departure;
import org.edl.am.FleetChange.Migration;
import org.edl.am.FleetChange.Replacement;
import org.edl.am.FleetChange.Restart;
import org.edl.am.FleetChange.ScaleIn;
import org.edl.am.FleetChange.ScaleOut;
import org.edl.am.FleetChange.Shown;
import org.junit.jupiter.api.Test;

/** When each kind of change has landed ({@link FleetChange#landed}), and what a new AM attempt keeps of it. */
class FleetChangeTest {
  private static FleetView fleet(int target, boolean containersIn, String... live) {
    return new FleetView(target, Set.of(live), containersIn);
  }

  @Test
  void aScaleOutLandsWhenItsContainersStartedAndTheLeaderReportsTheTarget() {
    FleetChange out = new ScaleOut(1, Shown.since(LeaderReport.ofSize(2)));
    assertFalse(out.landed(fleet(3, false, "c1", "c2", "c3")), "c3 has not started");
    assertFalse(out.landed(fleet(3, true, "c1", "c2", "c3")), "the leader still reports 2");
    assertTrue(out.after(LeaderReport.ofSize(3)).landed(fleet(3, true, "c1", "c2", "c3")));
  }

  @Test
  void aScaleInLandsWhenItsLeaversAreGoneAndALeaveTheLeaderRefusedNoLongerCounts() {
    ScaleIn in = new ScaleIn(List.of("c2", "c3"), Shown.since(LeaderReport.ofSize(3)));
    assertEquals(Departure.SCALE_IN, in.departureOf("c3"));
    assertNull(in.departureOf("c1"));
    FleetChange reported = in.after(LeaderReport.ofSize(1));
    assertFalse(reported.landed(fleet(1, true, "c1", "c3")), "c3 still runs");
    assertTrue(reported.landed(fleet(1, true, "c1")));
    ScaleIn staying = in.staying("c3");
    assertNull(staying.departureOf("c3"));
    assertTrue(staying.after(LeaderReport.ofSize(2)).landed(fleet(2, true, "c1", "c3")));
  }

  @Test
  void aMigrationLandsWithAllItsNewcomersAndWithoutItsLeavers() {
    Migration m = Migration.asked("h1", "h3", List.of("c1", "c2"), Shown.since(LeaderReport.ofSize(3)))
        .heldByLeader();
    assertEquals(2, m.awaited());
    Migration one = m.admitted("c4");
    assertFalse(one.landed(fleet(3, true, "c3", "c4")), "one newcomer still awaited");
    Migration both = one.admitted("c5");
    assertEquals(List.of("c4", "c5"), both.newcomers());
    assertFalse(both.landed(fleet(3, true, "c1", "c2", "c3", "c4", "c5")), "the leavers still run");
    assertTrue(both.landed(fleet(3, true, "c3", "c4", "c5")));
    Migration lost = both.newcomerLost("c5");
    assertEquals(1, lost.awaited());
    assertEquals(List.of("c4"), lost.newcomers());
  }

  @Test
  void aLossWaitsForALaterReportAndAFailedMembersRecovery() {
    FleetChange r = new Replacement(Shown.since(LeaderReport.ofSize(3)));
    FleetChange lost = r.lost("c2", 3);
    assertFalse(lost.landed(fleet(3, true, "c1", "c3", "c4")), "the report before the failure counted c2");
    FleetChange sameSize = lost.after(LeaderReport.ofSize(3));
    assertFalse(sameSize.landed(fleet(3, true, "c1", "c3", "c4")), "3 may still count c2");
    FleetChange recovered = sameSize.after(new LeaderReport(3, Optional.of(List.of("c1", "c3", "c4")), 2));
    assertTrue(recovered.landed(fleet(3, true, "c1", "c3", "c4")), "c2 is not in the ring the leader names");
    assertTrue(lost.after(LeaderReport.ofSize(2)).shown().unrecovered().isEmpty(), "a smaller ring shows it too");
  }

  @Test
  void aNewAttemptKeepsWhatStillRunsAndForgetsAMigrationTheLeaderNeverHeld() {
    Shown seen = Shown.since(LeaderReport.ofSize(3));
    Set<String> running = Set.of("c1", "c3", "c4");
    assertNull(Migration.asked("h1", "h3", List.of("c1", "c2"), seen).takenOver(running::contains));
    Migration held = (Migration) Migration.asked("h1", "h3", List.of("c1", "c2"), seen).heldByLeader()
        .admitted("c4").admitted("c5").takenOver(running::contains);
    assertEquals(List.of("c4"), held.newcomers());
    assertEquals(1, held.awaited(), "c5 is gone: one newcomer is requested again");
    assertEquals(Shown.NOTHING, held.shown(), "the new attempt waits for the leader's next report");
    Restart restart = (Restart) new Restart(new StopResume(2, 3, "hdfs:///ckpt/restart-1"), List.of("c1", "c2"), seen)
        .takenOver(running::contains);
    assertEquals(List.of("c1"), restart.stopping());
    assertEquals(List.of("c3"), ((ScaleIn) new ScaleIn(List.of("c2", "c3"), seen).takenOver(running::contains)).leavers());
  }
}
