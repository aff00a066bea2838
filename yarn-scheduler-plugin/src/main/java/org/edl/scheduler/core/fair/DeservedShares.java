package org.edl.scheduler.core.fair;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;

/**
 * The GPUs each active user deserves now: weighted max-min fair water-filling over demand.
 *
 * <p>Computed in whole GPUs, one at a time: each GPU goes to the user whose deserved GPUs
 * relative to weight are lowest ({@link FairOrder#compareUsers}) among those who still ask for
 * more. That is exactly the continuous water level rounded the way the user heap would hand out
 * the GPUs of an empty cluster, and it gives three properties the tests check on random inputs:
 *
 * <ol>
 *   <li>nobody deserves more than it asks: {@code share <= demand};
 *   <li>the sum never exceeds the cluster, and is {@code min(cluster, total demand)} (GPUs nobody
 *       else asks for go to whoever does: utilisation first);
 *   <li>max-min fair: for a user {@code i} given less than it asks and any user {@code j} given
 *       something, {@code (share_j - 1) / weight_j <= share_i / weight_i}: taking one GPU from
 *       {@code j} and giving it to {@code i} would not make the allocation fairer.
 * </ol>
 */
public final class DeservedShares {
  private DeservedShares() {}

  /**
   * A user's claim.
   *
   * @param user unique in one computation
   * @param weight {@code >= 0}
   * @param gpus what the user asks for in all: held plus pending, {@code >= 0}
   */
  public record Demand(String user, double weight, long gpus) {
    public Demand {
      Checks.weight(user, weight);
      Checks.nonNegative("demand of user " + user, gpus);
    }
  }

  private static final class Level {
    final Demand demand;
    long share;

    Level(Demand demand) {
      this.demand = demand;
    }
  }

  /**
   * @param clusterGpus all GPUs of the cluster, held or free, {@code >= 0}
   * @return deserved GPUs of every user with a positive demand, by user name
   */
  public static Map<String, Long> compute(long clusterGpus, Collection<Demand> demands) {
    Checks.nonNegative("clusterGpus", clusterGpus);
    PriorityQueue<Level> heap =
        new PriorityQueue<>(
            (a, b) ->
                FairOrder.compareUsers(
                    a.demand.user(), a.share, a.demand.weight(),
                    b.demand.user(), b.share, b.demand.weight()));
    Map<String, Long> shares = new TreeMap<>();
    Set<String> seen = new HashSet<>();
    long asked = 0;
    for (Demand d : demands) {
      if (!seen.add(d.user())) {
        throw new IllegalArgumentException("user " + d.user() + " appears twice");
      }
      if (d.gpus() > 0) {
        heap.add(new Level(d));
        shares.put(d.user(), 0L);
        asked += d.gpus();
      }
    }
    long left = Math.min(clusterGpus, asked);
    while (left > 0) {
      Level l = heap.poll();
      l.share++;
      left--;
      if (l.share < l.demand.gpus()) {
        heap.add(l);
      } else {
        shares.put(l.demand.user(), l.share);
      }
    }
    for (Level l : heap) {
      shares.put(l.demand.user(), l.share);
    }
    return shares;
  }
}
