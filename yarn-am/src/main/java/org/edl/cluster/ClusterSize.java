package org.edl.cluster;

import org.edl.job.InvalidInputException;

/**
 * How big the embedded cluster is: every NodeManager advertises the same resources.
 *
 * @param nodes        NodeManagers to start
 * @param gpusPerNode  {@code yarn.io/gpu} each NodeManager advertises (fake devices: nothing
 *                     checks that they exist)
 * @param nodeMemoryMb memory each NodeManager offers to containers
 * @param nodeVcores   vcores each NodeManager offers to containers
 */
public record ClusterSize(int nodes, int gpusPerNode, int nodeMemoryMb, int nodeVcores) {
  public static final int DEFAULT_NODES = 2;
  public static final int DEFAULT_GPUS_PER_NODE = 4;
  /**
   * Room for one 1 GB container per GPU, an AM and some slack. It is only what YARN may hand
   * out; the containers' real use is what counts, and 2 nodes of this fit a 24 GiB machine.
   */
  public static final int DEFAULT_NODE_MEMORY_MB = 8192;
  /** YARN does not enforce vcores here, so these are slots, not the host's 2 cores. */
  public static final int DEFAULT_NODE_VCORES = 8;
  /** YARN's smallest container; a node must hold at least one. */
  public static final int MIN_NODE_MEMORY_MB = 1024;

  public static ClusterSize defaults() {
    return new ClusterSize(DEFAULT_NODES, DEFAULT_GPUS_PER_NODE, DEFAULT_NODE_MEMORY_MB, DEFAULT_NODE_VCORES);
  }

  /** Checks each size; the message names the field and the value. */
  public ClusterSize validate() {
    if (nodes < 1) {
      throw new InvalidInputException("nodes", nodes, "the cluster needs at least 1 node");
    }
    if (gpusPerNode < 0) {
      throw new InvalidInputException("gpus-per-node", gpusPerNode, "must be 0 or more");
    }
    if (nodeMemoryMb < MIN_NODE_MEMORY_MB) {
      throw new InvalidInputException(
          "node-memory-mb", nodeMemoryMb, "must be at least " + MIN_NODE_MEMORY_MB + " (one container)");
    }
    if (nodeVcores < 1) {
      throw new InvalidInputException("node-vcores", nodeVcores, "must be at least 1");
    }
    return this;
  }
}
