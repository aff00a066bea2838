package org.edl.am;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The GPU device indices the AM suggests per host: the lowest its own job does not hold first,
 * given back when the container ends. Only a suggestion: the AM knows nothing of other jobs'
 * containers, so where YARN does not isolate devices the workers claim indices on the node itself
 * and take these first (then any free one), and where YARN does they use YARN's and ignore these.
 * Suggesting distinct indices for the job's own workers keeps them from contending for one lock.
 */
final class GpuSlots {
  private final Map<String, TreeSet<Integer>> takenByHost = new HashMap<>();
  private final Map<String, List<Integer>> byContainer = new HashMap<>();

  List<Integer> assign(WorkerContainer container, int count) {
    TreeSet<Integer> taken = takenByHost.computeIfAbsent(container.host(), h -> new TreeSet<>());
    List<Integer> indices = new ArrayList<>(count);
    for (int i = 0; indices.size() < count; i++) {
      if (!taken.contains(i)) {
        indices.add(i);
      }
    }
    taken.addAll(indices);
    byContainer.put(container.id(), List.copyOf(indices));
    return List.copyOf(indices);
  }

  /**
   * Books {@code indices} for a container that already runs with them (one a previous AM
   * attempt launched), so that no later container on its host is given the same devices.
   */
  void take(WorkerContainer container, List<Integer> indices) {
    takenByHost.computeIfAbsent(container.host(), h -> new TreeSet<>()).addAll(indices);
    byContainer.put(container.id(), List.copyOf(indices));
  }

  /** The indices {@code containerId} holds; empty when it holds none. */
  List<Integer> of(String containerId) {
    return byContainer.getOrDefault(containerId, List.of());
  }

  void free(WorkerContainer container) {
    List<Integer> indices = byContainer.remove(container.id());
    if (indices != null) {
      takenByHost.getOrDefault(container.host(), new TreeSet<>()).removeAll(indices);
    }
  }
}
