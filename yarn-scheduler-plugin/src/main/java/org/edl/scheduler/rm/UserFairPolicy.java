package org.edl.scheduler.rm;

import java.util.Comparator;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.DominantResourceFairnessPolicy;
import org.edl.scheduler.core.fair.FairOrder;

/**
 * The top level of the two-level heap, for the parent of the per-user queues: a child queue
 * (a user) holding fewer GPUs relative to its weight is offered resources first
 * ({@link FairOrder#compareStarvation}). Equally starved users (on a cluster or among users
 * that hold no GPUs) are ordered the same way by memory held relative to weight (what the stock
 * {@code fair} policy compares), then by queue name. The stock DRF comparator was the first
 * choice for that tie-break, but it costs about ten times as much per comparison and ties are
 * common (every user holding no GPUs), which would have made a scheduling pass several times
 * the stock cost.
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
        c =
            FairOrder.compareStarvation(
                a.getResourceUsage().getMemorySize(), a.getWeight(),
                b.getResourceUsage().getMemorySize(), b.getWeight());
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
