package org.edl.am;

import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.edl.job.CandidateWithdrawal;
import org.edl.job.JobPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the AM knows first when a worker's process dies: YARN reports its container's exit within
 * half a second, while its ZooKeeper session lives on until the session timeout (30 s). The AM
 * removes the dead worker's presence node, which the leader watches and takes as the worker's
 * failure at once, and its candidacy in the leader election, so that when the dead worker led,
 * the next candidate is elected now rather than when the session expires. Both are facts, not
 * guesses: the process is gone. The fencing of the protocol does not change (a successor still
 * takes a newer epoch, and anything of the old one is refused). Only the job's processes may delete
 * these nodes ({@link org.edl.job.JobZooKeeperAcl}); the AM is one.
 */
final class ExitEvidence {
  private static final Logger LOG = LoggerFactory.getLogger(ExitEvidence.class);

  private final CuratorFramework zk;
  private final String appId;
  private final Executor executor;

  ExitEvidence(CuratorFramework zk, String appId, Executor executor) {
    this.zk = zk;
    this.appId = appId;
    this.executor = executor;
  }

  /** {@code containerId}'s process has exited: withdraw its presence and candidacy (off the caller's thread). */
  void exited(String containerId) {
    executor.execute(() -> {
      try {
        withdraw(containerId);
      } catch (Exception e) {
        LOG.warn("Could not withdraw the presence of exited {} ({}); the leader notices when its session expires",
            containerId, e.toString());
      }
    });
  }

  void withdraw(String containerId) throws Exception {
    String presence = ZKPaths.makePath(JobPaths.members(appId), containerId);
    byte[] candidate;
    try {
      candidate = zk.getData().forPath(presence);
    } catch (KeeperException.NoNodeException gone) {
      return;
    }
    if (candidate != null && candidate.length > 0
        && CandidateWithdrawal.withdrawCandidacy(zk, appId, candidate) > 0) {
      LOG.info("Withdrew the leadership candidacy of exited {}", containerId);
    }
    zk.delete().quietly().forPath(presence);
    LOG.info("Withdrew the presence of exited {}: the leader declares it failed now", containerId);
  }
}
