package org.edl.bench.partitions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.edl.cluster.hosts.LinkCuts;
import org.edl.cluster.hosts.MultiHostCluster;
import org.edl.cluster.hosts.SimulatedHost;
import org.edl.job.JobPaths;
import org.edl.thrift.JobStatus;
import org.edl.thrift.LeaderRecord;
import org.edl.thrift.WorkerPlacement;

/**
 * Finds, at the moment of the cut, the hosts a {@link Partition} separates (where the leader and
 * its followers run, as the AM's status and the leader's record in ZooKeeper say; the ZooKeeper
 * servers', the ResourceManager's and the AM's hosts) and cuts their links.
 */
final class PartitionTargets {
  private final MultiHostCluster cluster;
  private final CuratorFramework zk;
  private final String appId;

  PartitionTargets(MultiHostCluster cluster, CuratorFramework zk, String appId) {
    this.cluster = cluster;
    this.zk = zk;
    this.appId = appId;
  }

  /**
   * Cuts what {@code p} cuts, given the job's status now and its AM's host.
   *
   * @return what was cut, for the run's note; empty when the job does not have what the kind
   *     needs (no follower whose successor is another follower, say): nothing was cut
   */
  Optional<String> cut(Partition p, JobStatus status, String amHost, LinkCuts cuts) throws Exception {
    List<String> ring = status.getProgress().getMembers();
    String leader = leaderId();
    List<SimulatedHost> zooKeeper = cluster.zooKeeperHosts();
    switch (p.kind()) {
      case LEADER_FROM_FOLLOWERS -> {
        SimulatedHost l = hostOf(status, leader);
        Set<SimulatedHost> followers = new LinkedHashSet<>();
        for (String id : ring) {
          if (!id.equals(leader)) {
            followers.add(hostOf(status, id));
          }
        }
        followers.remove(l);
        if (followers.isEmpty()) {
          return Optional.empty();
        }
        for (SimulatedHost f : followers) {
          cuts.cutBetween(l, f);
        }
        return Optional.of("leader " + leader + " on " + l.name() + " cut from followers' hosts " + names(followers));
      }
      case LEADER_FROM_ZOOKEEPER -> {
        SimulatedHost l = hostOf(status, leader);
        for (SimulatedHost z : zooKeeper) {
          cuts.cutBetween(l, z);
        }
        return Optional.of("leader " + leader + " on " + l.name() + " cut from ZooKeeper hosts " + names(zooKeeper));
      }
      case FOLLOWER_TO_SUCCESSOR -> {
        for (int i = 0; i < ring.size(); i++) {
          String from = ring.get(i);
          String to = ring.get((i + 1) % ring.size());
          SimulatedHost a = hostOf(status, from);
          SimulatedHost b = hostOf(status, to);
          if (!from.equals(leader) && !to.equals(leader) && !a.equals(b)) {
            cuts.cut(a, b);
            return Optional.of("follower " + from + " on " + a.name() + " cut (one way) from its successor " + to
                + " on " + b.name());
          }
        }
        return Optional.empty();
      }
      case ZOOKEEPER_MINORITY -> {
        SimulatedHost z = zooKeeper.get(zooKeeper.size() - 1);
        cuts.isolate(z);
        return Optional.of("ZooKeeper host " + z.name() + " isolated");
      }
      case ZOOKEEPER_QUORUM -> {
        List<SimulatedHost> cut = zooKeeper.subList(1, zooKeeper.size());
        for (SimulatedHost z : cut) {
          cuts.isolate(z);
        }
        return Optional.of("ZooKeeper hosts " + names(cut) + " isolated: no quorum");
      }
      case AM_FROM_RESOURCEMANAGER -> {
        SimulatedHost am = cluster.host(amHost);
        SimulatedHost rm = cluster.masterHost();
        cuts.cutBetween(am, rm);
        return Optional.of("AM on " + am.name() + " cut from the ResourceManager on " + rm.name());
      }
      default -> throw new IllegalArgumentException("unknown partition " + p.kind());
    }
  }

  /** The worker the leader's record names, as the leader last published it. */
  private String leaderId() throws Exception {
    LeaderRecord record = new LeaderRecord();
    new TDeserializer(new TCompactProtocol.Factory()).deserialize(record, zk.getData().forPath(JobPaths.job(appId)));
    return record.getLeaderId();
  }

  private SimulatedHost hostOf(JobStatus s, String container) throws IOException {
    for (WorkerPlacement p : s.getPlacements()) {
      if (p.getContainer().equals(container)) {
        return cluster.host(p.getHost());
      }
    }
    throw new IOException(container + " is not among the placements " + s.getPlacements());
  }

  private static List<String> names(java.util.Collection<SimulatedHost> hosts) {
    List<String> names = new ArrayList<>();
    hosts.forEach(h -> names.add(h.name()));
    return names;
  }
}
