package org.edl.scheduler.rm;

import java.util.Comparator;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.DominantResourceFairnessPolicy;

/**
 * The plugin's Elastic-Tiresias mode, chosen per queue in the allocation file like the other EDL
 * policies: on the parent of the per-user queues and on the user queues (the shipped file's
 * {@code nestedUserQueue} layout), applications get containers in the order the simulator's own
 * {@link org.edl.scheduler.core.policy.TiresiasPolicy} puts them (least attained GPU service
 * first, by queue, then arrival), across users: a user queue goes as early as its best-ranked
 * application. The order is computed every monitoring interval by {@link TiresiasRanking} (in
 * {@link GpuFairPreemptionPolicy}, which must be on); an application submitted since sorts as
 * Tiresias sorts a new job, in the first queue after the ones already there. Ties keep
 * {@link AppOrderPolicy}'s order.
 *
 * <p>Shares and limits stay DRF's. FairScheduler keeps one instance per class: no state here.
 */
public class ElasticTiresiasPolicy extends DominantResourceFairnessPolicy {
  public static final String NAME = "EDL Elastic-Tiresias (least attained GPU service first)";

  private static final Comparator<Schedulable> COMPARATOR = (a, b) -> {
    int c = rank(a).compareTo(rank(b));
    return c != 0 ? c : AppOrderPolicy.order(a, b);
  };

  private static TiresiasRanks.Rank rank(Schedulable s) {
    return s instanceof SchedulerApplicationAttempt app ? TiresiasRanks.of(app.getApplicationId())
        : TiresiasRanks.ofQueue(s.getName());
  }

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public Comparator<Schedulable> getComparator() {
    return COMPARATOR;
  }
}
