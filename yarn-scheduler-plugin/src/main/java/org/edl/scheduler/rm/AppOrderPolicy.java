package org.edl.scheduler.rm;

import java.util.Comparator;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.DominantResourceFairnessPolicy;
import org.edl.scheduler.core.fair.FairOrder;

/**
 * The lower level of the two-level heap, for each user's queue: applications by priority
 * (higher first), then submit time (earlier first), then name ({@link
 * FairOrder#compareRequests}). A user's priorities only order that user's own applications; the
 * parent's {@link UserFairPolicy} decides between users, so a high priority buys no share.
 *
 * <p>Shares and limits stay DRF's, as in {@link UserFairPolicy}.
 */
public class AppOrderPolicy extends DominantResourceFairnessPolicy {
  public static final String NAME = "EDL application order (priority, submit time)";

  private static final Comparator<Schedulable> COMPARATOR = AppOrderPolicy::order;

  /** Priority, then submit time, then name; shared with {@link ElasticTiresiasPolicy}'s ties. */
  static int order(Schedulable a, Schedulable b) {
    int c = FairOrder.compareRequests(priority(a), a.getStartTime(), priority(b), b.getStartTime());
    return c != 0 ? c : a.getName().compareTo(b.getName());
  }

  /**
   * The submitted priority where {@link EdlFairScheduler} kept it; otherwise what the
   * schedulable says (the stock FairScheduler says 1 for every application).
   */
  private static int priority(Schedulable s) {
    Priority p = s.getPriority();
    int fallback = p == null ? 0 : p.getPriority();
    if (s instanceof SchedulerApplicationAttempt app) {
      return AppPriorities.of(app.getApplicationId(), fallback);
    }
    return fallback;
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
