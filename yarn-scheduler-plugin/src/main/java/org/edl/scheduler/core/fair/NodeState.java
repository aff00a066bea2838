package org.edl.scheduler.core.fair;

import java.util.Objects;

/**
 * A node and its GPUs not held by any container.
 *
 * @param id unique in one decision
 * @param freeGpus GPUs not allocated now, {@code >= 0}
 */
public record NodeState(String id, int freeGpus) {
  public NodeState {
    Objects.requireNonNull(id, "id");
    Checks.nonNegative("freeGpus of node " + id, freeGpus);
  }
}
