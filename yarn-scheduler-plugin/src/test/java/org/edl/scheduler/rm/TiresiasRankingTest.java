package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.junit.jupiter.api.Test;

/** The RM's rounds of the simulator's Tiresias policy, on facts as the scheduler reports them. */
class TiresiasRankingTest {
  private static final ApplicationId OLD = ApplicationId.newInstance(1, 1);
  private static final ApplicationId FRESH = ApplicationId.newInstance(1, 2);
  private static final ApplicationId OTHER = ApplicationId.newInstance(1, 3);

  private static TiresiasRanking.AppFacts facts(ApplicationId id, String queue, double submit, int held, int asked,
      double attained) {
    return new TiresiasRanking.AppFacts(id, queue, submit, held, asked, attained);
  }

  @Test
  void applicationsAreRankedByAttainedServiceQueueThenArrivalAcrossUsers() {
    TiresiasRanking ranking = new TiresiasRanking(TiresiasParams.DEFAULT);
    List<TiresiasRanking.AppFacts> round1 = List.of(facts(OLD, "root.users.dave", 0, 4, 0, 100));
    assertEquals(0, ranking.round(round1, 8, 10).get(OLD).queue());

    // OLD crosses 500 GPU-seconds; FRESH (another user) arrives later but goes first; OTHER,
    // dave's second job, arrives last and ranks after FRESH.
    List<TiresiasRanking.AppFacts> round2 = List.of(facts(OLD, "root.users.dave", 0, 4, 0, 600),
        facts(FRESH, "root.users.erin", 120, 0, 2, 0), facts(OTHER, "root.users.dave", 130, 0, 1, 0));
    Map<ApplicationId, TiresiasRanks.Rank> ranks = ranking.round(round2, 8, 150);
    assertEquals(List.of(FRESH, OTHER, OLD), ranking.order());
    assertEquals(1, ranks.get(OLD).queue());
    assertEquals(new TiresiasRanks.Rank(0, 0), ranks.get(FRESH));
    assertEquals(Map.of("root.users.erin", new TiresiasRanks.Rank(0, 0), "root.users.dave", new TiresiasRanks.Rank(0, 1)),
        TiresiasRanking.bestPerQueue(round2, ranks));

    // FRESH finished; a node joined (the policy is rebuilt with every job it knew).
    List<TiresiasRanking.AppFacts> round3 = List.of(facts(OLD, "root.users.dave", 0, 4, 0, 700),
        facts(OTHER, "root.users.dave", 130, 1, 0, 20));
    ranks = ranking.round(round3, 12, 160);
    assertEquals(List.of(OTHER, OLD), ranking.order());
    assertEquals(Map.of(OTHER, new TiresiasRanks.Rank(0, 0), OLD, new TiresiasRanks.Rank(1, 1)), ranks);
  }
}
