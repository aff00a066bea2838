package org.edl.scheduler.core.fair;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
   * The one-at-a-time order hands out a user's k-th GPU at level {@code k / weight}. Every GPU
   * below some level L therefore comes before every GPU at or above it, so giving all of them at
   * once, for the highest L that does not overrun the cluster, changes nothing but the cost
   * (a big cluster would otherwise take one heap operation per GPU). The heap is rebuilt with
   * the new shares; the rest goes one at a time.
   *
   * @return GPUs handed out
   */
  private static long fillBelowLevel(PriorityQueue<Level> heap, long gpus) {
    if (heap.isEmpty() || gpus <= 0) {
      return 0;
    }
    double hi = 0;
    for (Level l : heap) {
      if (l.demand.weight() > 0) {
        hi = Math.max(hi, l.demand.gpus() / l.demand.weight());
      }
    }
    double lo = 0;
    for (int i = 0; i < 64 && lo < hi; i++) {
      double mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) {
        break;
      }
      if (below(heap, mid) <= gpus) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    long given = 0;
    List<Level> all = new ArrayList<>(heap);
    heap.clear();
    for (Level l : all) {
      l.share = below(l, lo);
      given += l.share;
      if (l.share < l.demand.gpus()) {
        heap.add(l);
      }
    }
    return given;
  }

  private static long below(PriorityQueue<Level> heap, double level) {
    long n = 0;
    for (Level l : heap) {
      n += below(l, level);
    }
    return n;
  }

  /** How many of the user's GPUs k = 0, 1, ... have level k / weight strictly below level. */
  private static long below(Level l, double level) {
    double w = l.demand.weight();
    long d = l.demand.gpus();
    if (w <= 0) {
      return 0;
    }
    long n = (long) Math.min(d, Math.max(0, Math.ceil(level * w)));
    // The product can round either way; settle on exactly the heap's own comparison.
    while (n > 0 && FairOrder.usage(n - 1, w) >= level) {
      n--;
    }
    while (n < d && FairOrder.usage(n, w) < level) {
      n++;
    }
    return n;
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
    List<Level> levels = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    long asked = 0;
    for (Demand d : demands) {
      if (!seen.add(d.user())) {
        throw new IllegalArgumentException("user " + d.user() + " appears twice");
      }
      if (d.gpus() > 0) {
        Level l = new Level(d);
        levels.add(l);
        heap.add(l);
        asked += d.gpus();
      }
    }
    long left = Math.min(clusterGpus, asked);
    left -= fillBelowLevel(heap, left);
    while (left > 0) {
      Level l = heap.poll();
      l.share++;
      left--;
      if (l.share < l.demand.gpus()) {
        heap.add(l);
      }
    }
    Map<String, Long> shares = new TreeMap<>();
    for (Level l : levels) {
      shares.put(l.demand.user(), l.share);
    }
    return shares;
  }
}
