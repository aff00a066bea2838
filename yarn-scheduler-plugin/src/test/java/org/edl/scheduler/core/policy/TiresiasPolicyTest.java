package org.edl.scheduler.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TiresiasPolicyTest {
  private static Map<Long, Integer> decide(ClusterPolicy p, double now, List<FakeJob> jobs) {
    Map<Long, Integer> out = new LinkedHashMap<>();
    p.schedule(now, (j, g) -> out.put(j.id(), g));
    for (FakeJob j : jobs) {
      if (out.containsKey(j.id)) {
        j.gpus = out.get(j.id);
      }
    }
    return out;
  }

  @Test
  void queuesFollowAttainedServiceAtFiveHundredAndTenThousandGpuSeconds() {
    TiresiasPolicy p = new TiresiasPolicy(8, TiresiasParams.DEFAULT, false);
    FakeJob a = new FakeJob(1, "u", 2, 0);
    p.arrived(a, 0);
    decide(p, 0, List.of(a));
    assertEquals(0, p.queueOf(a));
    assertEquals(250.0, p.nextReview(a, 0), 1e-9, "2 GPUs cross 500 GPU-s after 250 s");
    a.attained = 499.9;
    p.review(a, 249.95);
    assertEquals(0, p.queueOf(a));
    a.attained = 500;
    p.review(a, 250);
    assertEquals(1, p.queueOf(a));
    assertEquals(250 + 9500 / 2.0, p.nextReview(a, 250), 1e-9);
    a.attained = 10_000;
    p.review(a, 5000);
    assertEquals(2, p.queueOf(a));
    assertEquals(Double.POSITIVE_INFINITY, p.nextReview(a, 5000));
  }

  @Test
  void aJobInAHigherQueuePreemptsADemotedOne() {
    TiresiasPolicy p = new TiresiasPolicy(4, TiresiasParams.DEFAULT, false);
    FakeJob old = new FakeJob(1, "u", 4, 0);
    old.attained = 600;
    FakeJob fresh = new FakeJob(2, "u", 4, 10);
    p.arrived(old, 0);
    p.arrived(fresh, 10);
    assertEquals(Map.of(2L, 4), decide(p, 10, List.of(old, fresh)));
  }

  @Test
  void theRankingAndTargetsAreTheWholeDecisionNotOnlyItsChanges() {
    TiresiasPolicy p = new TiresiasPolicy(4, TiresiasParams.DEFAULT, false);
    FakeJob old = new FakeJob(1, "u", 4, 0);
    FakeJob fresh = new FakeJob(2, "v", 4, 10);
    p.arrived(old, 0);
    decide(p, 0, List.of(old));
    old.attained = 600;
    p.review(old, 150);
    p.arrived(fresh, 150);
    decide(p, 150, List.of(old, fresh));
    assertEquals(List.of(fresh, old), p.ranked(), "queue 0 before the demoted job, whatever their arrival");
    assertEquals(4, p.target(fresh));
    assertEquals(0, p.target(old));

    // The next decision changes nothing, so it emits nothing; the targets still say who runs
    // (a runner whose preemption has not landed yet must not read silence as "keep it").
    assertEquals(Map.of(), decide(p, 160, List.of(old, fresh)));
    assertEquals(4, p.target(fresh));
    assertEquals(0, p.target(old));
    p.finished(fresh, 170);
    assertEquals(List.of(old), p.ranked());
    assertEquals(0, p.target(fresh));
  }

  /**
   * The ResourceManager's rule: a demoted elastic job passed over keeps its floor (the minimum its
   * tag guarantees is never preempted), and the newer job gets only what is left beside it. The
   * paper's reading preempts the demoted job outright.
   */
  @Test
  void withFloorsKeptADemotedElasticJobKeepsItsFloorWhereTheWalkPassesItOver() {
    for (boolean kept : new boolean[] {false, true}) {
      TiresiasPolicy p = new TiresiasPolicy(8, TiresiasParams.DEFAULT.withFloorsKept(kept), true);
      FakeJob old = new FakeJob(1, "u", 4, 0);
      p.arrived(old, 0);
      decide(p, 0, List.of(old));
      assertEquals(8, old.gpus, "alone, it grows into the idle GPUs");
      old.attained = 600;
      p.review(old, 75);
      FakeJob fresh = new FakeJob(2, "u", 8, 75);
      p.arrived(fresh, 75);
      Map<Long, Integer> d = decide(p, 75, List.of(old, fresh));
      if (kept) {
        assertEquals(Map.of(1L, 2, 2L, 6), d, "the old job down to its floor, 2 of its 4; the new one on the other 6");
        assertEquals(2, p.target(old));
      } else {
        assertEquals(Map.of(1L, 0, 2L, 8), d, "the demoted job preempted; the new one on all 8");
      }
    }
  }

  @Test
  void withFloorsKeptAJobOfOneSizeIsStillPreemptedAndAJobGatheringKeepsOnlyWhatItHolds() {
    TiresiasPolicy p = new TiresiasPolicy(8, TiresiasParams.DEFAULT.withFloorsKept(true), true);
    FakeJob rigid = new FakeJob(1, "u", 4, 0);
    rigid.elastic = false;
    FakeJob gathering = new FakeJob(2, "u", 4, 1);
    p.arrived(rigid, 0);
    p.arrived(gathering, 1);
    rigid.gpus = 4;
    gathering.gpus = 1;
    rigid.attained = 600;
    gathering.attained = 600;
    p.review(rigid, 100);
    p.review(gathering, 100);
    FakeJob fresh = new FakeJob(3, "u", 8, 100);
    p.arrived(fresh, 100);
    Map<Long, Integer> d = decide(p, 100, List.of(rigid, gathering, fresh));
    assertEquals(0, p.target(rigid), "one size: preempted as Tiresias would");
    assertEquals(1, p.target(gathering), "keeps the one GPU it holds, not its floor of 2");
    assertEquals(7, d.get(3L));
  }

  @Test
  void elasticTiresiasScalesInLowerPriorityJobsOnlyWhenMoreThanNJobsWait() {
    // X and Y just arrived (queue 0); Z has 12,000 GPU-s (queue 2) and runs on 4 of 10 GPUs.
    // Tiresias gives X its 6, Y (6) does not fit, Z fits in the last 4: one job waits.
    for (int n : new int[] {0, 1}) {
      TiresiasParams params = new TiresiasParams(new double[] {500, 10_000}, 0, n, 0.25, 1);
      TiresiasPolicy p = new TiresiasPolicy(10, params, true);
      FakeJob z = new FakeJob(1, "u", 4, 0);
      z.attained = 12_000;
      z.gpus = 4;
      FakeJob x = new FakeJob(2, "u", 6, 2600);
      FakeJob y = new FakeJob(3, "u", 6, 2600);
      p.arrived(z, 0);
      decide(p, 0, List.of(z));
      p.arrived(x, 2600);
      p.arrived(y, 2600);
      Map<Long, Integer> d = decide(p, 2600, List.of(z, x, y));
      if (n == 0) {
        // More than N = 0 wait: Z goes down to ceil(0.25 x 4) = 1 and Y starts on the 3 freed.
        assertEquals(Map.of(1L, 1, 2L, 6, 3L, 3), d);
      } else {
        assertEquals(Map.of(2L, 6), d, "with N = 1 one waiting job changes nothing");
      }
    }
  }

  @Test
  void whenMoreThanNWaitJobsInLowerQueuesShrinkEvenForLaterJobs() {
    // A (queue 1, 8 GPUs) runs; B and C, also in queue 1 but submitted later, wait behind it.
    // Tiresias keeps them waiting; with N = 1 two waiting jobs are too many, so A goes down to
    // its minimum of 4 and B starts on the 4 freed, though B comes after A in 2D-LAS order.
    TiresiasParams params = new TiresiasParams(new double[] {500, 10_000}, 0, 1, 0.5, 1);
    TiresiasPolicy p = new TiresiasPolicy(8, params, true);
    FakeJob a = new FakeJob(1, "u", 8, 0);
    a.attained = 600;
    FakeJob b = new FakeJob(2, "u", 4, 10);
    b.attained = 600;
    FakeJob c = new FakeJob(3, "u", 4, 20);
    c.attained = 600;
    p.arrived(a, 0);
    decide(p, 0, List.of(a));
    assertEquals(8, a.gpus);
    p.arrived(b, 20);
    p.arrived(c, 20);
    assertEquals(Map.of(1L, 4, 2L, 4), decide(p, 20, List.of(a, b, c)));
    // Nothing changed: the same decision again moves nobody.
    assertEquals(Map.of(), decide(p, 21, List.of(a, b, c)));

    TiresiasPolicy plain = new TiresiasPolicy(8, params, false);
    a.gpus = 0;
    b.gpus = 0;
    plain.arrived(a, 0);
    plain.arrived(b, 20);
    plain.arrived(c, 20);
    assertEquals(Map.of(1L, 8), decide(plain, 20, List.of(a, b, c)));
  }

  @Test
  void elasticTiresiasGivesIdleGpusToTheLargestGainUpToMax() {
    TiresiasPolicy p = new TiresiasPolicy(8, TiresiasParams.DEFAULT, true);
    FakeJob linear = new FakeJob(1, "u", 1, 0);
    FakeJob flat = new FakeJob(2, "u", 2, 0);
    flat.speedup = g -> Math.min(g, 2.5);
    p.arrived(linear, 0);
    p.arrived(flat, 0);
    // linear grows to its max of 2 (gain 1 per GPU); flat's gain is 0.5/2 for its third GPU, then 0.
    assertEquals(Map.of(1L, 2, 2L, 3), decide(p, 0, List.of(linear, flat)));
    assertEquals(1, p.minGpus(flat));
    assertEquals(4, p.maxGpus(flat));
  }

  @Test
  void starvationPromotionMovesALongWaitingJobToTheTopQueue() {
    TiresiasParams knob2 = new TiresiasParams(new double[] {500, 10_000}, 2, 10, 0.5, 2);
    TiresiasPolicy p = new TiresiasPolicy(1, knob2, false);
    FakeJob starved = new FakeJob(1, "u", 1, 0);
    starved.attained = 600;
    starved.executed = 600;
    starved.lastStopped = 1000;
    p.arrived(starved, 1000);
    assertEquals(1, p.queueOf(starved));
    // It ran 600 s, so it is promoted once it has waited 2 x 600 s since it stopped.
    assertEquals(2200.0, p.nextReview(starved, 1000), 1e-9);
    p.review(starved, 2199);
    assertEquals(1, p.queueOf(starved));
    p.review(starved, 2200);
    assertEquals(0, p.queueOf(starved));
    // Its service counts afresh: it stays in queue 0 for its next 500 GPU-s.
    starved.gpus = 1;
    assertEquals(2700.0, p.nextReview(starved, 2200), 1e-9);
  }

  @Test
  void fifoNeverLetsALaterJobPassTheHead() {
    FifoPolicy p = new FifoPolicy(4);
    FakeJob big = new FakeJob(1, "u", 4, 0);
    FakeJob bigger = new FakeJob(2, "u", 3, 1);
    FakeJob small = new FakeJob(3, "u", 1, 2);
    p.arrived(big, 0);
    assertEquals(Map.of(1L, 4), decide(p, 0, List.of(big)));
    p.arrived(bigger, 1);
    p.arrived(small, 2);
    assertEquals(Map.of(), decide(p, 2, List.of(big, bigger, small)));
    big.gpus = 0;
    p.finished(big, 5);
    assertEquals(Map.of(2L, 3, 3L, 1), decide(p, 5, List.of(bigger, small)));
  }
}
