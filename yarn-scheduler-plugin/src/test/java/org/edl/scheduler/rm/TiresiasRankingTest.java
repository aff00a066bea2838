package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.scheduler.core.fair.RunningContainer;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.junit.jupiter.api.Test;

/** The RM's rounds of the simulator's Tiresias policy, on facts as the scheduler reports them. */
class TiresiasRankingTest {
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
    assertEquals(new TiresiasRanks.Rank(0, 0), ranks.get(FRESH));
    assertEquals(Map.of("root.users.erin", new TiresiasRanks.Rank(0, 0), "root.users.dave", new TiresiasRanks.Rank(0, 1)),
        TiresiasRanking.bestPerQueue(round2, ranks));

    // FRESH finished; a node joined (the policy is rebuilt with every job it knew).
    List<TiresiasRanking.AppFacts> round3 = List.of(facts(OLD, "root.users.dave", 0, 4, 4, 700),
        facts(OTHER, "root.users.dave", 130, 1, 1, 20));
    ranks = ranking.round(round3, 12, 160).ranks();
    assertEquals(List.of(OTHER, OLD), ranking.order());
    assertEquals(Map.of(OTHER, new TiresiasRanks.Rank(0, 0), OLD, new TiresiasRanks.Rank(1, 1)), ranks);
  }

  @Test
  void aJobTheWalkDoesNotReachLosesItsElasticExtrasNewestFirstAndNothingBelowItsMinimum() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    ranking.round(List.of(facts(OLD, "root.users.dave", 0, 4, 4, 100)), 4, 10);
    // OLD (4 GPUs, 2 guaranteed by its tag) has left the first queue; FRESH asks for 2.
    TiresiasRanking.Round round = ranking.round(List.of(facts(OLD, "root.users.dave", 0, 4, 4, 600),
        facts(FRESH, "root.users.erin", 120, 0, 2, 0)), 4, 150);
    assertEquals(0, round.targets().get(OLD), "passed over by the walk: Tiresias would pause it");
    assertTrue(round.targets().get(FRESH) >= 2, "and the new job gets what it asks for (and idle GPUs)");
    List<RunningContainer> held = List.of(
        container("c1", OLD, 10, false), container("c2", OLD, 11, false),
        container("c3", OLD, 20, true), container("c4", OLD, 21, true));
    assertEquals(List.of("c3", "c4"), TiresiasRanking.victims(held, round.targets()).stream()
        .map(RunningContainer::id).toList());

    // Only one GPU over its target: the newest extra goes.
    assertEquals(List.of("c4"), TiresiasRanking.victims(held, Map.of(OLD, 3)).stream()
        .map(RunningContainer::id).toList());
    // Without a tag every container is guaranteed: nothing to take.
    List<RunningContainer> untagged = held.stream()
        .map(c -> new RunningContainer(c.id(), c.job(), c.user(), c.node(), c.gpus(), 0, c.startTime(), false)).toList();
    assertEquals(List.of(), TiresiasRanking.victims(untagged, round.targets()));
  }

  private static RunningContainer container(String id, ApplicationId app, long started, boolean extra) {
    return new RunningContainer(id, app.toString(), "root.users.dave", "n1", 1, 0, started, extra);
  }
}
