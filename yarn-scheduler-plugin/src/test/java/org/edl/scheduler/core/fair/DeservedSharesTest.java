package org.edl.scheduler.core.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.edl.scheduler.core.fair.DeservedShares.Demand;
import org.junit.jupiter.api.Test;

class DeservedSharesTest {

  /**
   * 12 GPUs, equal weights, demands a=2, b=5, c=10. Level 4 would give 4+4+4=12 but a asks
   * only 2, so the 2 left over rise the level for b and c: (12-2)/2 = 5 each; b asks exactly 5.
   * Shares a=2, b=5, c=5; sum 12.
   */
  @Test
  void smallDemandIsMetAndTheRestSplitEvenly() {
    Map<String, Long> s =
        DeservedShares.compute(
            12, List.of(new Demand("a", 1, 2), new Demand("b", 1, 5), new Demand("c", 1, 10)));
    assertEquals(Map.of("a", 2L, "b", 5L, "c", 5L), s);
  }

  /**
   * 8 GPUs, alice weight 1, bob weight 3, both ask for 8. Level L with L*1 + L*3 = 8: L = 2,
   * alice 2, bob 6.
   */
  @Test
  void weightsScaleTheShares() {
    Map<String, Long> s =
        DeservedShares.compute(8, List.of(new Demand("alice", 1, 8), new Demand("bob", 3, 8)));
    assertEquals(Map.of("alice", 2L, "bob", 6L), s);
  }

  /**
   * 8 GPUs: bob asks 8 (he holds them), alice asks 4. Level 4 covers alice's 4 exactly: 4 and 4.
   * This is the end-to-end example.
   */
  @Test
  void bobAndAliceSplitTheEightGpus() {
    Map<String, Long> s =
        DeservedShares.compute(8, List.of(new Demand("bob", 1, 8), new Demand("alice", 1, 4)));
    assertEquals(Map.of("alice", 4L, "bob", 4L), s);
  }

  /** One user alone deserves everything it asks, up to the cluster: 8 GPUs, asks 20 -> 8. */
  @Test
  void aLoneUserGetsTheWholeCluster() {
    assertEquals(Map.of("a", 8L), DeservedShares.compute(8, List.of(new Demand("a", 1, 20))));
    assertEquals(Map.of("a", 3L), DeservedShares.compute(8, List.of(new Demand("a", 1, 3))));
  }

  /**
   * 7 GPUs over three equal users who each ask 7: the level is 7/3; in whole GPUs 3, 2, 2, the
   * odd GPU to the first name (the tie-break). Inactive users (demand 0) are left out.
   */
  @Test
  void anIndivisibleRemainderGoesByName() {
    Map<String, Long> s =
        DeservedShares.compute(
            7,
            List.of(
                new Demand("c", 1, 7), new Demand("b", 1, 7), new Demand("a", 1, 7),
                new Demand("idle", 1, 0)));
    assertEquals(Map.of("a", 3L, "b", 2L, "c", 2L), s);
  }

  /** Weight 0: only GPUs nobody of positive weight asks for. 10 GPUs, a asks 6, z (w 0) 9. */
  @Test
  void zeroWeightTakesOnlyLeftovers() {
    Map<String, Long> s =
        DeservedShares.compute(10, List.of(new Demand("a", 1, 6), new Demand("z", 0, 9)));
    assertEquals(Map.of("a", 6L, "z", 4L), s);
  }

  @Test
  void negativeWeightIsRefusedNamingUserAndValue() {
    var e = assertThrows(IllegalArgumentException.class, () -> new Demand("carol", -1.5, 3));
    assertTrue(e.getMessage().contains("carol") && e.getMessage().contains("-1.5"), e.getMessage());
  }

  /**
   * The shortcut (everything below a common level at once) gives exactly what handing out one
   * GPU at a time, as the javadoc defines it, gives: compared with that slow reference on random
   * inputs, including big clusters, ties and weight 0.
   */
  @Test
  void equalsTheOneGpuAtATimeDefinition() {
    Random rnd = new Random(42);
    for (int round = 0; round < 1_000; round++) {
      int users = 1 + rnd.nextInt(20);
      long cluster = rnd.nextInt(round % 2 == 0 ? 50 : 5_000);
      List<Demand> demands = new ArrayList<>();
      for (int i = 0; i < users; i++) {
        double w = rnd.nextInt(8) == 0 ? 0 : (1 + rnd.nextInt(6)) / (double) (1 + rnd.nextInt(3));
        demands.add(new Demand("u" + i, w, rnd.nextInt(round % 2 == 0 ? 20 : 2_000)));
      }
      assertEquals(oneAtATime(cluster, demands), DeservedShares.compute(cluster, demands),
          "round " + round + " " + demands + " cluster " + cluster);
    }
  }

  private static Map<String, Long> oneAtATime(long cluster, List<Demand> demands) {
    Map<String, Long> s = new java.util.TreeMap<>();
    long asked = 0;
    for (Demand d : demands) {
      if (d.gpus() > 0) {
        s.put(d.user(), 0L);
        asked += d.gpus();
      }
    }
    for (long left = Math.min(cluster, asked); left > 0; left--) {
      Demand best = null;
      for (Demand d : demands) {
        long sd = s.getOrDefault(d.user(), 0L);
        if (sd < d.gpus() && (best == null || FairOrder.compareUsers(d.user(), sd, d.weight(),
            best.user(), s.get(best.user()), best.weight()) < 0)) {
          best = d;
        }
      }
      s.merge(best.user(), 1L, Long::sum);
    }
    return s;
  }

  @Test
  void theThreeInvariantsHoldOnRandomInputs() {
    Random rnd = new Random(20261203);
    for (int round = 0; round < 2_000; round++) {
      int users = 1 + rnd.nextInt(12);
      long cluster = rnd.nextInt(64);
      List<Demand> demands = new ArrayList<>();
      for (int i = 0; i < users; i++) {
        double w = rnd.nextInt(10) == 0 ? 0 : 0.25 + rnd.nextInt(16) * 0.25;
        demands.add(new Demand("u" + i, w, rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(30)));
      }
      Map<String, Long> s = DeservedShares.compute(cluster, demands);
      String ctx = "round " + round + " cluster " + cluster + " " + demands + " -> " + s;
      long sum = 0;
      long asked = 0;
      for (Demand d : demands) {
        long share = s.getOrDefault(d.user(), 0L);
        assertTrue(share >= 0 && share <= d.gpus(), "share above demand: " + ctx);
        sum += share;
        asked += d.gpus();
      }
      assertTrue(sum <= cluster, "sum above cluster: " + ctx);
      assertEquals(Math.min(cluster, asked), sum, "GPUs left idle while asked for: " + ctx);
      for (Demand i : demands) {
        long si = s.getOrDefault(i.user(), 0L);
        if (si >= i.gpus()) {
          continue;
        }
        for (Demand j : demands) {
          long sj = s.getOrDefault(j.user(), 0L);
          if (sj > 0 && j != i) {
            assertTrue(
                FairOrder.usage(sj - 1, j.weight()) <= FairOrder.usage(si, i.weight()),
                "not max-min fair between " + i.user() + " and " + j.user() + ": " + ctx);
          }
        }
      }
    }
  }
}
