package org.edl.scheduler.rm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * Submitted application priorities, which the stock FairScheduler drops (its application
 * attempts all report priority 1). {@link EdlFairScheduler} records them at submission and
 * forgets them at removal; {@link AppOrderPolicy} reads them. JVM-wide because FairScheduler
 * keeps one policy instance per class JVM-wide; application ids carry the RM's start time, so
 * two ResourceManagers in one JVM (a test) do not collide.
 */
final class AppPriorities {
  private static final Map<ApplicationId, Integer> PRIORITIES = new ConcurrentHashMap<>();

  private AppPriorities() {}

  static void put(ApplicationId app, int priority) {
    PRIORITIES.put(app, priority);
  }

  static void remove(ApplicationId app) {
    PRIORITIES.remove(app);
  }

  static int of(ApplicationId app, int fallback) {
    return PRIORITIES.getOrDefault(app, fallback);
  }
}
