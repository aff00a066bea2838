package org.edl.cluster.hosts;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which daemon runs on which host: the NameNode and the ResourceManager on the first, a ZooKeeper
 * server on each of the first three (an ensemble of three, or of as many hosts as there are), a
 * DataNode and a NodeManager on every host but the first {@code masterHosts} (0 by default; as
 * clusters whose master daemons and ZooKeeper servers have machines of their own); blocks kept
 * twice where there are two DataNodes.
 */
record MultiHostLayout(List<SimulatedHost> hosts, int masterHosts, int hostMemoryMb, int hostVcores,
    GpuSupply gpus, Path fairSchedulerFile) {
  static final int ZOOKEEPER_SERVERS = 3;

  SimulatedHost nameNode() {
    return hosts.get(0);
  }

  SimulatedHost resourceManager() {
    return hosts.get(0);
  }

  /** The hosts with a DataNode and a NodeManager: where blocks are kept and containers run. */
  List<SimulatedHost> workerHosts() {
    return hosts.subList(masterHosts, hosts.size());
  }

  List<SimulatedHost> zooKeeper() {
    return hosts.subList(0, Math.min(ZOOKEEPER_SERVERS, hosts.size()));
  }

  int replication() {
    return Math.min(2, workerHosts().size());
  }

  String zooKeeperConnect(int clientPort) {
    return zooKeeper().stream().map(h -> h.address() + ":" + clientPort).collect(Collectors.joining(","));
  }
}
