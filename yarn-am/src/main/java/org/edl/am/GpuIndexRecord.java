package org.edl.am;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.edl.job.JobPaths;

/**
 * The GPU indices each worker container was launched with, under
 * {@code /edl/<appId>/gpus/<containerId>}. Without YARN's GPU plugin nobody but the AM that
 * launched a container knows its devices (the node manager does not hand a container's
 * environment back), so a new AM attempt that adopts running workers reads them here. ZooKeeper
 * rather than the staging directory: the AM already holds a session, a launch costs one small
 * write, and the job's ZooKeeper subtree lives exactly as long as the job.
 */
final class GpuIndexRecord {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GpuIndexRecord.class);
  private final CuratorFramework zk;
  private final String root;

  GpuIndexRecord(CuratorFramework zk, String appId) {
    this.zk = zk;
    this.root = JobPaths.gpus(appId);
  }

  /** Written before the container is started, so that an adopting attempt never misses it. */
  void write(String containerId, List<Integer> indices) throws Exception {
    byte[] data = indices.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse("")
        .getBytes(StandardCharsets.UTF_8);
    String path = root + "/" + containerId;
    try {
      zk.create().creatingParentsIfNeeded().forPath(path, data);
    } catch (KeeperException.NodeExistsException e) {
      zk.setData().forPath(path, data);
    }
  }

  /**
   * The container has exited (or never started): no attempt will adopt it, and a job that scales
   * a thousand times must not keep a thousand records. Best effort; the job's subtree goes at
   * its end anyway.
   */
  void forget(String containerId) {
    try {
      zk.delete().forPath(root + "/" + containerId);
    } catch (KeeperException.NoNodeException gone) {
      // never written (not launched) or already forgotten
    } catch (Exception e) {
      LOG.warn("Could not remove the GPU record of exited {}: {}", containerId, e.toString());
    }
  }

  Optional<List<Integer>> read(String containerId) throws Exception {
    try {
      String text = new String(zk.getData().forPath(root + "/" + containerId), StandardCharsets.UTF_8);
      return Optional.of(text.isEmpty() ? List.of()
          : Arrays.stream(text.split(",")).map(Integer::valueOf).toList());
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }
}
