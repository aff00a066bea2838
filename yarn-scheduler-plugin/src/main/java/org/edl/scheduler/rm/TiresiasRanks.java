package org.edl.scheduler.rm;

import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * The Elastic-Tiresias order of the applications, as {@link TiresiasRanking} last published it,
 * for {@link ElasticTiresiasPolicy}'s comparator. One immutable map swapped whole: a sort never
 * mixes two rankings. JVM-wide for the same reason as {@link AppPriorities}: FairScheduler keeps
 * one policy instance per class.
 */
final class TiresiasRanks {
  /**
   * Where an application sorts: first by its tier, then its queue (0: least attained service),
   * then its position in the policy's order (0 first). {@link #UNDER_REQUEST}: it holds less than
   * it asks for (a new job waiting for its request, or one scaled in below it);
   * {@link #GROWING}: it holds its request but the round's hand-out of idle GPUs (rule 4) gives
   * it more; {@link #SERVED}: what it asks for beyond that are extras nobody gave it. The tiers
   * are how the round's decision reaches a scheduler that serves applications in order as
   * containers come free. A waiting job goes before a growing one even where the round passed it
   * over: on YARN a finishing job's containers come free one by one, so a round can see one free
   * GPU where a moment later there are four, and handing that one to a job's growth would only
   * take it back from it a round later.
   */
  record Rank(int tier, int queue, int position) implements Comparable<Rank> {
    static final int UNDER_REQUEST = 0;
    static final int GROWING = 1;
    static final int SERVED = 2;
    /** An application the ranking has not seen yet: Tiresias puts a new job in queue 0, last; it waits. */
    static final Rank UNSEEN = new Rank(UNDER_REQUEST, 0, Integer.MAX_VALUE);

    @Override
    public int compareTo(Rank o) {
      if (tier != o.tier) {
        return Integer.compare(tier, o.tier);
      }
      return queue != o.queue ? Integer.compare(queue, o.queue) : Integer.compare(position, o.position);
    }
  }

  private record Published(Map<ApplicationId, Rank> apps, Map<String, Rank> queues) {}

  private static volatile Published current = new Published(Map.of(), Map.of());

  private TiresiasRanks() {}

  /** @param queues each leaf queue's best-ranked application, for the parent's order of users */
  static void publish(Map<ApplicationId, Rank> apps, Map<String, Rank> queues) {
    current = new Published(Map.copyOf(apps), Map.copyOf(queues));
  }

  static Rank of(ApplicationId app) {
    return current.apps().getOrDefault(app, Rank.UNSEEN);
  }

  /** A queue without ranked applications (none, or all new) sorts as a new job. */
  static Rank ofQueue(String queueName) {
    return current.queues().getOrDefault(queueName, Rank.UNSEEN);
  }
}
