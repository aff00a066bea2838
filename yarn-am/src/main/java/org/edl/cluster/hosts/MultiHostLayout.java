package org.edl.cluster.hosts;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which daemon runs on which host: the NameNode and the ResourceManager on the first, a ZooKeeper
 * server on each of the first three (an ensemble of three, or of as many hosts as there are), a
 * DataNode and a NodeManager on every host; blocks kept twice where there are two DataNodes.
 */
record MultiHostLayout(List<SimulatedHost> hosts, int hostMemoryMb, int hostVcores, GpuSupply gpus,
    Path fairSchedulerFile) {
  static final int ZOOKEEPER_SERVERS = 3;

  SimulatedHost nameNode() {
    return hosts.get(0);
  }

  SimulatedHost resourceManager() {
    return hosts.get(0);
  }

  List<SimulatedHost> zooKeeper() {
    return hosts.subList(0, Math.min(ZOOKEEPER_SERVERS, hosts.size()));
  }

  int replication() {
    return Math.min(2, hosts.size());
  }

  String zooKeeperConnect(int clientPort) {
    return zooKeeper().stream().map(h -> h.address() + ":" + clientPort).collect(Collectors.joining(","));
  }
}
