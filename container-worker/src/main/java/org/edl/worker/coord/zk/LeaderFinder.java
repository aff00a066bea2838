package org.edl.worker.coord.zk;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.edl.job.JobPaths;

/**
 * Where the job's leader listens, read from the election without taking part in it: newcomers
 * find the leader before they may be candidates, and members follow a successor with it.
 */
public final class LeaderFinder {
  private final CuratorFramework client;
  private final String latchPath;
  /** The election changes seen so far, and the leader read since the last of them (null: read again). */
  private record Memo(long changes, String known) {}

  /** Replaced by compare-and-set: a read remembers its answer only if no change came in between. */
  private final AtomicReference<Memo> memo = new AtomicReference<>(new Memo(0, null));

  public LeaderFinder(CuratorFramework client, String appId) {
    this.client = client;
    this.latchPath = JobPaths.leader(appId);
  }

  /**
   * The elected leader's coordinator address, waiting (on watches) until one is elected; answered
   * from memory while the election has not changed since it was read (a watch on it forgets the
   * answer). A member whose ZooKeeper server is cut off learns so only when its client's read
   * timeout (two thirds of the session timeout) passes, and until then every read waits: its
   * heartbeats would stop, and the leader would declare a live member failed.
   */
  public String leaderAddress(Duration timeout) throws Exception {
    Memo seen = memo.get();
    if (seen.known() != null) {
      return seen.known();
    }
    boolean watched;
    try {
      // Watched before reading: a change after the watch is set forgets what is read.
      client.getChildren().usingWatcher((CuratorWatcher) this::electionChanged).forPath(latchPath);
      watched = true;
    } catch (KeeperException.NoNodeException e) {
      watched = false; // nobody has joined yet: read (and wait) without remembering
    }
    String leader = LeaderElection.leaderAddress(client, latchPath, timeout);
    if (watched) {
      memo.compareAndSet(seen, new Memo(seen.changes(), leader));
    }
    return leader;
  }

  /** A connection event (type None) changes nothing: the watch stays set across reconnects. */
  private void electionChanged(WatchedEvent event) {
    if (event.getType() != Watcher.Event.EventType.None) {
      memo.updateAndGet(m -> new Memo(m.changes() + 1, null));
    }
  }

  /** The address of a leader other than {@code previous}: its successor, once elected. */
  public String leaderAddressOtherThan(String previous, Duration timeout) throws Exception {
    return LeaderElection.leaderAddressOtherThan(client, latchPath, previous, timeout);
  }
}
