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
   * Where an application sorts: first by its tier ({@link #SHORT}: the round gives it more GPUs
   * than it holds; {@link #SERVED}: it holds what the round gives it, so what it asks for beyond
   * that are extras the decision did not hand out), then its queue (0: least attained service),
   * then its position in the policy's order (0 first). The tier is how the round's hand-out of
   * idle GPUs (rule 4, by throughput gain) reaches a scheduler that serves applications in order:
   * a job that the decision grows, or that waits for its request, is served before a job that only
   * asks for more.
   */
  record Rank(int tier, int queue, int position) implements Comparable<Rank> {
    static final int SHORT = 0;
    static final int SERVED = 1;
    /** An application the ranking has not seen yet: Tiresias puts a new job in queue 0, last; it waits. */
    static final Rank UNSEEN = new Rank(SHORT, 0, Integer.MAX_VALUE);

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
