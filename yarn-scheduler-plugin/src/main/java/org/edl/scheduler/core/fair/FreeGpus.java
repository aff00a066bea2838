package org.edl.scheduler.core.fair;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Free GPUs per node, indexed by amount so that best fit (the fullest node that still fits,
 * which keeps large holes for large requests) is a logarithmic lookup.
 */
final class FreeGpus {
  private final Map<String, Integer> byNode = new HashMap<>();
  private final TreeMap<Integer, TreeSet<String>> byAmount = new TreeMap<>();
  private long total;

  FreeGpus(Iterable<NodeState> nodes) {
    for (NodeState n : nodes) {
      if (byNode.putIfAbsent(n.id(), n.freeGpus()) != null) {
        throw new IllegalArgumentException("node " + n.id() + " appears twice");
      }
      index(n.id(), n.freeGpus());
      total += n.freeGpus();
    }
  }

  long total() {
    return total;
  }

  /** The most free GPUs on any node. */
  int max() {
    return byAmount.isEmpty() ? 0 : byAmount.lastKey();
  }

  int of(String node) {
    return byNode.getOrDefault(node, 0);
  }

  /** The node with the fewest free GPUs that still has {@code gpus}, ties by id; or null. */
  String bestFit(int gpus) {
    var e = byAmount.ceilingEntry(gpus);
    return e == null ? null : e.getValue().first();
  }

  void add(String node, int delta) {
    Integer old = byNode.get(node);
    if (old == null) {
      throw new IllegalArgumentException("unknown node " + node);
    }
    int now = old + delta;
    if (now < 0) {
      throw new IllegalStateException("node " + node + " would have " + now + " free GPUs");
    }
    TreeSet<String> set = byAmount.get(old);
    if (set != null) {
      set.remove(node);
      if (set.isEmpty()) {
        byAmount.remove(old);
      }
    }
    byNode.put(node, now);
    index(node, now);
    total += delta;
  }

  private void index(String node, int free) {
    // A full node can take nothing, so only nodes with free GPUs are indexed.
    if (free > 0) {
      byAmount.computeIfAbsent(free, k -> new TreeSet<>()).add(node);
    }
  }
}
