package org.edl.scheduler.rm;

import java.util.Comparator;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.DominantResourceFairnessPolicy;
import org.edl.scheduler.core.fair.FairOrder;

/**
 * The top level of the two-level heap, for the parent of the per-user queues: a child queue
 * (a user) holding fewer GPUs relative to its weight is offered resources first
 * ({@link FairOrder#compareStarvation}). Equally starved users (on a cluster or among users
 * that hold no GPUs) fall back to the stock DRF order, then the queue name.
 *
 * <p>Fair shares, steady shares, headroom and the over-share check stay DRF's: they drive the
 * web UI and queue limits, and this policy only changes who goes first. Being DRF-kind, its
 * parent (the root) must be {@code drf} or this class too: a {@code fair} parent refuses DRF
 * children. FairScheduler keeps one instance per class, so this class holds no state.
 */
public class UserFairPolicy extends DominantResourceFairnessPolicy {
  public static final String NAME = "EDL user fair share (GPUs held / weight)";

  private final Comparator<Schedulable> comparator =
      (a, b) -> {
        int c =
            FairOrder.compareStarvation(
                Gpus.of(a.getResourceUsage()), a.getWeight(),
                Gpus.of(b.getResourceUsage()), b.getWeight());
        if (c != 0) {
          return c;
        }
        c = super.getComparator().compare(a, b);
        return c != 0 ? c : a.getName().compareTo(b.getName());
      };

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public Comparator<Schedulable> getComparator() {
    return comparator;
  }
}
