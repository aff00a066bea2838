package org.edl.bench.partitions;

/**
 * What a partition may cost a job, by the rules EDL keeps (docs/architecture.md, "Network
 * partitions"): only a cut that lasts past its timeout costs workers, and then only those the
 * rule names.
 */
final class PartitionPromise {
  private PartitionPromise() {}

  /**
   * Worker failures the partition costs a job of {@code workers} workers.
   *
   * <ul>
   *   <li>leader from followers, past the sync timeout: the leader hears no follower and declares
   *   each failed (the leader decides; it still holds its ZooKeeper session);
   *   <li>leader from ZooKeeper, past the session timeout: its session ends and it is out of the
   *   job (one); below it the leader only gives up leading;
   *   <li>follower to successor, past the sync timeout: one member of the broken link;
   *   <li>a ZooKeeper minority, the quorum lost, the AM cut from the ResourceManager: none (the
   *   sessions outlive the first two; a new AM attempt adopts the workers).
   * </ul>
   */
  static int workerFailures(Partition p, int workers) {
    if (!p.longerThanTimeout()) {
      return 0;
    }
    return switch (p.kind()) {
      case LEADER_FROM_FOLLOWERS -> workers - 1;
      case LEADER_FROM_ZOOKEEPER, FOLLOWER_TO_SUCCESSOR -> 1;
      case ZOOKEEPER_MINORITY, ZOOKEEPER_QUORUM, AM_FROM_RESOURCEMANAGER -> 0;
    };
  }
}
