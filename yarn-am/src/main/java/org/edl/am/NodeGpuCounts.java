package org.edl.am;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code yarn.io/gpu} each node advertises, from the ResourceManager's node reports: a worker
 * claims indices below it on its node. The reports are asked for again only when a container
 * lands on a node not seen yet, so a launch costs no call to the ResourceManager but the first on
 * each node. Main thread only.
 */
final class NodeGpuCounts {
  private static final Logger LOG = LoggerFactory.getLogger(NodeGpuCounts.class);

  /** The running nodes' reports (the cluster client's). */
  @FunctionalInterface
  interface NodeReports {
    List<NodeReport> running() throws Exception;
  }

  private final NodeReports reports;
  private final Map<NodeId, Long> byNode = new HashMap<>();
  private boolean unavailable;

  NodeGpuCounts(NodeReports reports) {
    this.reports = reports;
  }

  /**
   * Empty when the ResourceManager cannot say: the worker then claims only the AM's suggestion.
   * A failed listing is not tried again: on a secure cluster the AM holds no credentials for the
   * client protocol, and every try waits out the RPC client's retries on the AM's main thread.
   */
  OptionalLong of(NodeId node) {
    if (!byNode.containsKey(node) && !unavailable) {
      try {
        for (NodeReport r : reports.running()) {
          byNode.put(r.getNodeId(), GpuCount.of(r.getCapability()));
        }
      } catch (Exception e) {
        unavailable = true;
        LOG.warn("Could not list the cluster's nodes for their GPUs ({}); workers claim only the indices the AM"
            + " suggests", e.toString());
      }
    }
    Long n = byNode.get(node);
    return n == null ? OptionalLong.empty() : OptionalLong.of(n);
  }
}
