package org.edl.job;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes a worker whose process is known to be gone from the job's ZooKeeper nodes: its latch
 * node in the leader election (so that, if it led, the next candidate is elected now rather than
 * when its session expires) and its presence node (so that the leader declares it failed now).
 * Both are named by the worker's candidate id, its coordinator address {@code host:port}, which
 * is the data of both nodes. Only the job's processes may delete them ({@link JobZooKeeperAcl}).
 * Who calls it must know the process is gone: the AM from YARN's report of the container's exit,
 * a member from the leader's port refusing connections. Fencing is unchanged: a successor takes a
 * newer epoch either way.
 */
public final class CandidateWithdrawal {
  private static final Logger LOG = LoggerFactory.getLogger(CandidateWithdrawal.class);

  private CandidateWithdrawal() {}

  /**
   * Deletes the latch and presence nodes whose data is {@code candidate}.
   *
   * @return how many nodes were deleted
   */
  public static int withdraw(CuratorFramework zk, String appId, String candidate, String why) throws Exception {
    byte[] data = candidate.getBytes(StandardCharsets.UTF_8);
    int deleted = deleteMatching(zk, JobPaths.leader(appId), data);
    if (deleted > 0) {
      LOG.info("Withdrew the leadership candidacy of {} ({})", candidate, why);
    }
    int presence = deleteMatching(zk, JobPaths.members(appId), data);
    if (presence > 0) {
      LOG.info("Withdrew the presence of {} ({}): the leader declares it failed now", candidate, why);
    }
    return deleted + presence;
  }

  /** Deletes the latch nodes whose data is {@code candidate} (its presence is left alone). */
  public static int withdrawCandidacy(CuratorFramework zk, String appId, byte[] candidate) throws Exception {
    return deleteMatching(zk, JobPaths.leader(appId), candidate);
  }

  private static int deleteMatching(CuratorFramework zk, String parent, byte[] data) throws Exception {
    int deleted = 0;
    for (String child : children(zk, parent)) {
      String path = ZKPaths.makePath(parent, child);
      try {
        if (Arrays.equals(data, zk.getData().forPath(path))) {
          zk.delete().forPath(path);
          deleted++;
        }
      } catch (KeeperException.NoNodeException gone) {
        // its session ended meanwhile, or another process withdrew it first
      }
    }
    return deleted;
  }

  private static List<String> children(CuratorFramework zk, String path) throws Exception {
    try {
      return zk.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException none) {
      return List.of();
    }
  }
}
