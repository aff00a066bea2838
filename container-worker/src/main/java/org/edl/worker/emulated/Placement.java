package org.edl.worker.emulated;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The profiles' name for where a ring runs: GPUs per node, one digit per node, ascending. */
public final class Placement {
  private Placement() {}

  /**
   * @param nodes         the node of every ring member (one entry per worker): a NodeManager's
   *                      id, so that two NodeManagers on one host count as two nodes
   * @param gpusPerWorker GPUs each worker holds (0 counts as 1: a CPU worker stands in for one GPU)
   */
  public static String of(Collection<String> nodes, int gpusPerWorker) {
    int each = Math.max(1, gpusPerWorker);
    Map<String, Integer> perHost = new TreeMap<>();
    for (String h : nodes) {
      perHost.merge(h, each, Integer::sum);
    }
    return perHost.values().stream().sorted().map(String::valueOf).collect(Collectors.joining());
  }
}
