package org.edl.scheduler.core.fair;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the preemption planner decides from, taken at one instant.
 *
 * @param takenAt when the snapshot was taken (milliseconds in the caller's time base; the
 *     ResourceManager passes its clock, the simulator its simulated time)
 * @param weights user weights; a user missing here has weight 1
 * @param nodes every node with its free GPUs (the cluster is these GPUs plus the containers')
 * @param containers every running container holding GPUs
 * @param pending every pending request
 */
public record ClusterSnapshot(
    long takenAt,
    Map<String, Double> weights,
    List<NodeState> nodes,
    List<RunningContainer> containers,
    List<PendingRequest> pending) {
  public ClusterSnapshot {
    weights = Map.copyOf(Objects.requireNonNull(weights, "weights"));
    nodes = List.copyOf(nodes);
    containers = List.copyOf(containers);
    pending = List.copyOf(pending);
  }

  public double weight(String user) {
    return weights.getOrDefault(user, 1.0);
  }
}
