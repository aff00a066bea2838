package org.edl.scheduler.core.fair;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Warn first, kill later: turns successive preemption plans into warnings and kills.
 *
 * <p>A container a plan names is warned once (its application master is told and can scale in
 * gracefully). If it still runs {@code graceMillis} after the warning and the current plan still
 * wants it, it is killed. A warned container the plan no longer wants is left alone: the
 * situation changed (the starved job went away, or its owner gave up other GPUs), and the
 * application master, already warned, may still give it up on its own.
 *
 * <p>Not thread-safe; one instance per preemption loop. Times are in the caller's time base.
 */
public final class GracePeriod {
  /** What to do now. Container ids as given by the plans' {@link RunningContainer#id()}. */
  public record Actions(List<String> warn, List<String> kill) {
    public boolean none() {
      return warn.isEmpty() && kill.isEmpty();
    }
  }

  private final long graceMillis;
  private final Map<String, Long> warnedAt = new HashMap<>();
  private final Set<String> killed = new HashSet<>();

  /** @param graceMillis how long a warned container may keep running, {@code >= 0} */
  public GracePeriod(long graceMillis) {
    Checks.nonNegative("grace period (ms)", graceMillis);
    this.graceMillis = graceMillis;
  }

  /**
   * @param plan the latest plan
   * @param running ids of every container still running now (from the same snapshot)
   * @param now the snapshot's time
   */
  public Actions next(PreemptionPlan plan, Set<String> running, long now) {
    warnedAt.keySet().retainAll(running);
    killed.retainAll(running);
    List<String> warn = new ArrayList<>();
    List<String> kill = new ArrayList<>();
    for (RunningContainer v : plan.victims()) {
      String id = v.id();
      if (!running.contains(id) || killed.contains(id)) {
        continue;
      }
      Long at = warnedAt.get(id);
      if (at == null) {
        warnedAt.put(id, now);
        warn.add(id);
      } else if (now - at >= graceMillis) {
        killed.add(id);
        kill.add(id);
      }
    }
    return new Actions(warn, kill);
  }

  /** When a container was warned, or null if it was not (or has ended). */
  public Long warnedAt(String containerId) {
    return warnedAt.get(containerId);
  }
}
