package org.edl.scheduler.core.fair;

import java.util.List;
import java.util.Map;

/**
 * What the planner decided.
 *
 * @param createdAt the snapshot's {@code takenAt}; a caller's grace period counts from here
 * @param deserved deserved GPUs of every active user
 * @param victims containers to take back, in the order they were chosen; empty when nothing
 *     needs (or can usefully be) preempted
 * @param placements where the simulation put the starved users' requests, with and without
 *     preemption; a guide, since the real allocator places them
 */
public record PreemptionPlan(
    long createdAt,
    Map<String, Long> deserved,
    List<RunningContainer> victims,
    List<Placement> placements) {
  public PreemptionPlan {
    deserved = Map.copyOf(deserved);
    victims = List.copyOf(victims);
    placements = List.copyOf(placements);
  }

  public boolean preemptsNothing() {
    return victims.isEmpty();
  }
}
