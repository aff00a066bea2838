package org.edl.job;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.recipes.locks.LockInternals;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * Reads the elected leader's coordinator address from the election under
 * {@link JobPaths#leader}: each candidate's Curator {@code LeaderLatch} node
 * ({@value #LATCH_PREFIX}...) holds its {@code host:port}, and the lowest-numbered node leads.
 * The workers' election ({@code org.edl.worker.coord.zk.LeaderElection}) and processes outside the
 * ring (the ApplicationMaster through {@link org.edl.job.rpc.LeaderClient}) read it alike.
 */
public final class LeaderAddress {
  /** Name prefix of the latch nodes, as Curator's {@code LeaderLatch} writes them. */
  public static final String LATCH_PREFIX = "latch-";

  private LeaderAddress() {}

  /**
   * The coordinator address of the elected leader, waiting (on ZooKeeper watches, not by
   * polling) until one is elected.
   *
   * @param latchPath {@link JobPaths#leader}
   * @throws TimeoutException when nobody is elected within {@code timeout}
   */
  public static String await(CuratorFramework client, String latchPath, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      CountDownLatch changed = new CountDownLatch(1);
      CuratorWatcher watcher = event -> changed.countDown();
      try {
        client.getChildren().usingWatcher(watcher).forPath(latchPath);
      } catch (KeeperException.NoNodeException e) {
        // Nobody has joined yet: watch for the path to appear.
        if (client.checkExists().usingWatcher(watcher).forPath(latchPath) != null) {
          continue;
        }
      }
      String leader = leaderOf(client, latchPath);
      if (leader != null) {
        return leader;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
        throw new TimeoutException("no leader elected at " + latchPath + " within " + timeout);
      }
    }
  }

  /**
   * The coordinator address of a leader other than {@code previous}: after a leader announced
   * that it leaves, the others wait here until its latch node is gone and a successor is elected.
   */
  public static String awaitOtherThan(CuratorFramework client, String latchPath, String previous,
      Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      CountDownLatch changed = new CountDownLatch(1);
      CuratorWatcher watcher = event -> changed.countDown();
      try {
        client.getChildren().usingWatcher(watcher).forPath(latchPath);
      } catch (KeeperException.NoNodeException e) {
        if (client.checkExists().usingWatcher(watcher).forPath(latchPath) != null) {
          continue;
        }
      }
      String leader = leaderOf(client, latchPath);
      if (leader != null && !leader.equals(previous)) {
        return leader;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
        throw new TimeoutException("leader " + previous + " was not succeeded at " + latchPath + " within " + timeout);
      }
    }
  }

  /**
   * The id of the lowest-numbered latch node, as LeaderLatch elects; null if there is none.
   * A node removed between listing and reading means that candidate left: try the next.
   */
  private static String leaderOf(CuratorFramework client, String latchPath) throws Exception {
    List<String> sorted;
    try {
      sorted = LockInternals.getSortedChildren(LATCH_PREFIX,
          StandardLockInternalsDriver::standardFixForSorting,
          client.getChildren().forPath(latchPath));
    } catch (KeeperException.NoNodeException e) {
      return null;
    }
    for (String node : sorted) {
      try {
        byte[] id = client.getData().forPath(ZKPaths.makePath(latchPath, node));
        return new String(id, StandardCharsets.UTF_8);
      } catch (KeeperException.NoNodeException e) {
        // gone meanwhile
      }
    }
    return null;
  }
}
