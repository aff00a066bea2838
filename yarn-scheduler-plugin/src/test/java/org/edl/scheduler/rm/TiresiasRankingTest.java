package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.scheduler.core.fair.RunningContainer;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.junit.jupiter.api.Test;

/** The RM's rounds of the simulator's Tiresias policy, on facts as the scheduler reports them. */
class TiresiasRankingTest {
  private static final int UNDER = TiresiasRanks.Rank.UNDER_REQUEST;
  private static final int GROWING = TiresiasRanks.Rank.GROWING;
  private static final int SERVED = TiresiasRanks.Rank.SERVED;
  private static final ApplicationId OLD = ApplicationId.newInstance(1, 1);
  private static final ApplicationId FRESH = ApplicationId.newInstance(1, 2);
  private static final ApplicationId OTHER = ApplicationId.newInstance(1, 3);

  private static TiresiasRanking.AppFacts facts(ApplicationId id, String queue, double submit, int held,
      int requested, double attained) {
    return new TiresiasRanking.AppFacts(id, queue, submit, held, requested, attained);
  }

  @Test
  void applicationsAreRankedByAttainedServiceQueueThenArrivalAcrossUsers() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    List<TiresiasRanking.AppFacts> round1 = List.of(facts(OLD, "root.users.dave", 0, 4, 4, 100));
    assertEquals(0, ranking.round(round1, 8, 10).ranks().get(OLD).queue());

    // OLD crosses 500 GPU-seconds; FRESH (another user) arrives later but goes first; OTHER,
    // dave's second job, arrives last and ranks after FRESH.
    List<TiresiasRanking.AppFacts> round2 = List.of(facts(OLD, "root.users.dave", 0, 4, 4, 600),
        facts(FRESH, "root.users.erin", 120, 0, 2, 0), facts(OTHER, "root.users.dave", 130, 0, 1, 0));
    Map<ApplicationId, TiresiasRanks.Rank> ranks = ranking.round(round2, 8, 150).ranks();
    assertEquals(List.of(FRESH, OTHER, OLD), ranking.order());
    assertEquals(1, ranks.get(OLD).queue());
    // Both new jobs wait for their requests: the first tier; OLD holds its share.
    assertEquals(new TiresiasRanks.Rank(UNDER, 0, 0), ranks.get(FRESH));
    assertEquals(new TiresiasRanks.Rank(SERVED, 1, 2), ranks.get(OLD));
    assertEquals(Map.of("root.users.erin", new TiresiasRanks.Rank(UNDER, 0, 0), "root.users.dave",
        new TiresiasRanks.Rank(UNDER, 0, 1)), TiresiasRanking.bestPerQueue(round2, ranks));

    // FRESH finished; a node joined (the policy is rebuilt with every job it knew).
    List<TiresiasRanking.AppFacts> round3 = List.of(facts(OLD, "root.users.dave", 0, 4, 4, 700),
        facts(OTHER, "root.users.dave", 130, 1, 1, 20));
    ranks = ranking.round(round3, 12, 160).ranks();
    assertEquals(List.of(OTHER, OLD), ranking.order());
    // Seven idle GPUs: each grows into them (linear speed-ups, up to twice its request).
    assertEquals(Map.of(OTHER, new TiresiasRanks.Rank(GROWING, 0, 0), OLD, new TiresiasRanks.Rank(GROWING, 1, 1)), ranks);
  }

  @Test
  void aJobWaitingForItsRequestIsServedBeforeAnOlderJobThatOnlyAsksForExtras() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    ranking.round(List.of(facts(OLD, "root.users.dave", 0, 8, 4, 100)), 8, 10);
    // OLD (first in Tiresias' order) grew to 8 while the cluster was idle; FRESH asks for 4.
    TiresiasRanking.Round round = ranking.round(List.of(facts(OLD, "root.users.dave", 0, 4, 4, 200),
        facts(FRESH, "root.users.dave", 30, 0, 4, 0)), 8, 40);
    assertEquals(List.of(OLD, FRESH), ranking.order(), "Tiresias' order is unchanged");
    assertEquals(Map.of(OLD, 4, FRESH, 4), round.targets());
    assertTrue(round.ranks().get(FRESH).compareTo(round.ranks().get(OLD)) < 0,
        "the GPUs OLD gives back go to FRESH, not back to OLD's extras: " + round.ranks());
  }

  @Test
  void aWaitingJobTheRoundPassesOverStillGoesBeforeAGrowingOne() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    // OTHER is ending and has given one of its four GPUs back: the round sees one free GPU, too
    // few for FRESH's four, and rule 4 gives it to OTHER's growth. It must still go towards FRESH.
    TiresiasRanking.Round round = ranking.round(List.of(facts(OLD, "root.users.dave", 0, 4, 4, 100),
        facts(OTHER, "root.users.dave", 5, 3, 3, 100), facts(FRESH, "root.users.dave", 30, 0, 4, 0)), 8, 40);
    assertEquals(0, round.targets().get(FRESH), "passed over: it does not fit");
    assertEquals(4, round.targets().get(OTHER), "the idle GPU grows OTHER: " + round.targets());
    assertEquals(GROWING, round.ranks().get(OTHER).tier());
    assertEquals(UNDER, round.ranks().get(FRESH).tier());
    assertTrue(round.ranks().get(FRESH).compareTo(round.ranks().get(OTHER)) < 0);
  }

  @Test
  void idleGpusGoToTheLargestGainByTheJobsTaggedCurves() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    // Both hold their request of 2 with 4 GPUs idle. OLD gains nothing past 2 workers; FRESH
    // nearly doubles. Linear speed-ups would grow OLD first (it is first in the order).
    SpeedupCurve flat = SpeedupCurve.of(Set.of(SpeedupCurve.TAG + "1:1/1.5/1.5/1.5"));
    SpeedupCurve steep = SpeedupCurve.of(Set.of(SpeedupCurve.TAG + "1:1/1.9/2.8/3.6"));
    TiresiasRanking.Round round = ranking.round(List.of(
        new TiresiasRanking.AppFacts(OLD, "root.users.dave", 0, 2, 2, 50, flat),
        new TiresiasRanking.AppFacts(FRESH, "root.users.erin", 5, 2, 2, 40, steep)), 8, 30);
    assertEquals(Map.of(OLD, 2, FRESH, 4), round.targets());
    assertEquals(SERVED, round.ranks().get(OLD).tier());
    assertEquals(GROWING, round.ranks().get(FRESH).tier());
    assertTrue(round.ranks().get(FRESH).compareTo(round.ranks().get(OLD)) < 0);

    TiresiasRanking linear = new TiresiasRanking(TiresiasParams.DEFAULT);
    TiresiasRanking.Round without = linear.round(List.of(facts(OLD, "root.users.dave", 0, 2, 2, 50),
        facts(FRESH, "root.users.erin", 5, 2, 2, 40)), 8, 30);
    assertEquals(Map.of(OLD, 4, FRESH, 4), without.targets(), "linear: both grow to twice their request");
  }

  @Test
  void aJobTheWalkDoesNotReachLosesItsElasticExtrasNewestFirstAndNothingBelowItsMinimum() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    ranking.round(List.of(facts(OLD, "root.users.dave", 0, 4, 4, 100)), 4, 10);
    // OLD (4 GPUs, 2 guaranteed by its tag) has left the first queue; FRESH asks for 2.
    TiresiasRanking.Round round = ranking.round(List.of(facts(OLD, "root.users.dave", 0, 4, 4, 600),
        facts(FRESH, "root.users.erin", 120, 0, 2, 0)), 4, 150);
    assertEquals(2, round.targets().get(OLD), "passed over by the walk: it keeps its floor, where Tiresias would"
        + " pause it");
    assertEquals(2, round.targets().get(FRESH), "and the new job gets what it asks for, beside that floor");
    List<RunningContainer> held = List.of(
        container("c1", OLD, 10, false), container("c2", OLD, 11, false),
        container("c3", OLD, 20, true), container("c4", OLD, 21, true));
    assertEquals(Set.of(), round.paused(), "an elastic job is scaled in to its floor, not paused");
    assertEquals(List.of("c3", "c4"), TiresiasRanking.victims(held, round).stream()
        .map(RunningContainer::id).toList());

    // Only one GPU over its target: the newest extra goes.
    assertEquals(List.of("c4"), TiresiasRanking.victims(held,
        new TiresiasRanking.Round(Map.of(), Map.of(OLD, 3), Set.of())).stream().map(RunningContainer::id).toList());
    // Without a tag every container is guaranteed: nothing to take.
    List<RunningContainer> untagged = held.stream()
        .map(c -> new RunningContainer(c.id(), c.job(), c.user(), c.node(), c.gpus(), 0, c.startTime(), false)).toList();
    assertEquals(List.of(), TiresiasRanking.victims(untagged, round));
  }

  /** The walk plans a job no lower than its tag guarantees, which the RM never takes. */
  @Test
  void aPassedOverJobKeepsWhatItsTagGuaranteesWhereThatIsAboveTheFloor() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    TiresiasRanking.AppFacts old = new TiresiasRanking.AppFacts(OLD, "root.users.dave", 0, 4, 4, 100, null, true,
        false, 3);
    ranking.round(List.of(old), 4, 10);
    TiresiasRanking.AppFacts demoted = new TiresiasRanking.AppFacts(OLD, "root.users.dave", 0, 4, 4, 600, null,
        true, false, 3);
    TiresiasRanking.Round round = ranking.round(List.of(demoted, facts(FRESH, "root.users.erin", 120, 0, 2, 0)), 4,
        150);
    assertEquals(3, round.targets().get(OLD), "its tag's 3, not ceil(0.5 x 4) = 2");
    assertEquals(1, round.targets().get(FRESH), "the new job, elastic, starts on the one GPU left");
  }

  @Test
  void aJobOfOneSizeTheWalkDoesNotReachIsPausedWithAllItsContainers() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    ranking.round(List.of(oneSize(OLD, 0, 4, 100)), 4, 10);
    // OLD holds all 4 GPUs, its whole request and its minimum, and has left the first queue.
    // FRESH's AM has not asked yet: nothing to pause for.
    TiresiasRanking.Round round = ranking.round(List.of(oneSize(OLD, 0, 4, 600),
        facts(FRESH, "root.users.erin", 120, 0, 0, 0)), 4, 145);
    assertEquals(0, round.targets().get(OLD));
    assertEquals(Set.of(), round.paused());
    // Now it asks for 4.
    round = ranking.round(List.of(oneSize(OLD, 0, 4, 600),
        facts(FRESH, "root.users.erin", 120, 0, 4, 0)), 4, 150);
    assertEquals(Map.of(OLD, 0, FRESH, 4), round.targets());
    assertEquals(Set.of(OLD), round.paused());
    List<RunningContainer> held = List.of(container("c1", OLD, 10, false), container("c2", OLD, 11, false),
        container("c3", OLD, 12, false), container("c4", OLD, 13, false));
    assertEquals(List.of("c1", "c2", "c3", "c4"), TiresiasRanking.victims(held, round).stream()
        .map(RunningContainer::id).toList());

    // Paused, it holds nothing and asks again: it waits under its request for the first GPUs
    // FRESH gives back (FRESH, served, asks for nothing more).
    round = ranking.round(List.of(oneSize(OLD, 0, 0, 610), facts(FRESH, "root.users.erin", 120, 4, 4, 20)), 4, 160);
    assertEquals(Map.of(OLD, 0, FRESH, 4), round.targets());
    assertEquals(Set.of(), round.paused(), "holding nothing, there is nothing to pause");
    assertEquals(UNDER, round.ranks().get(OLD).tier());

    // Two of its four GPUs were free and it got them back: it holds them until it has all four
    // (paused again it would only gather them anew).
    round = ranking.round(List.of(oneSize(OLD, 0, 2, 620), facts(FRESH, "root.users.erin", 120, 2, 2, 30)), 4, 170);
    assertEquals(0, round.targets().get(OLD));
    assertEquals(Set.of(), round.paused());
  }

  @Test
  void aJobOfOneSizeIsNeitherShrunkForAWaitingJobNorGrownIntoIdleGpus() {
    // Rule 3 on any waiting job (N = 0), shrinking to a quarter of the request.
    TiresiasParams anyWait = new TiresiasParams(new double[] {500, 10_000}, 0, 0, 0.25, 2);
    ApplicationId first = OTHER;
    // The walk: first (queue 0) gets 4; FRESH (queue 0, 6 GPUs) does not fit and is passed
    // over; OLD (queue 1) fits. Rule 3 starts FRESH on what OLD gives back, down to a quarter.
    TiresiasRanking.Round round = new TiresiasRanking(anyWait).round(List.of(
        facts(first, "root.users.carol", 10, 4, 4, 10), facts(FRESH, "root.users.erin", 30, 0, 6, 0),
        facts(OLD, "root.users.dave", 0, 4, 4, 600)), 8, 40);
    assertEquals(Map.of(first, 4, FRESH, 3, OLD, 1), round.targets(), "an elastic OLD gives three back");

    // OLD of one size cannot run on one GPU: rule 3 does not count on its GPUs, and it is not
    // paused either (Tiresias' walk reached it).
    round = new TiresiasRanking(anyWait).round(List.of(facts(first, "root.users.carol", 10, 4, 4, 10),
        facts(FRESH, "root.users.erin", 30, 0, 6, 0), oneSize(OLD, 0, 4, 600)), 8, 40);
    assertEquals(Map.of(first, 4, FRESH, 0, OLD, 4), round.targets());
    assertEquals(Set.of(), round.paused());

    // Alone with idle GPUs it is not grown (rule 4): it would never ask for them.
    TiresiasRanking alone = new TiresiasRanking(TiresiasParams.DEFAULT);
    round = alone.round(List.of(oneSize(OLD, 0, 4, 100)), 8, 10);
    assertEquals(Map.of(OLD, 4), round.targets());
    assertEquals(SERVED, round.ranks().get(OLD).tier());
  }

  private static TiresiasRanking.AppFacts oneSize(ApplicationId id, double submit, int held, double attained) {
    return new TiresiasRanking.AppFacts(id, "root.users.dave", submit, held, 4, attained, null, false, true);
  }

  private static RunningContainer container(String id, ApplicationId app, long started, boolean extra) {
    return new RunningContainer(id, app.toString(), "root.users.dave", "n1", 1, 0, started, extra);
  }
}
