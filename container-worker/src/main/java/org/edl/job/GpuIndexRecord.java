package org.edl.job;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * The GPU indices of each worker container, under {@code /edl/<appId>/gpus/<containerId>}: the
 * AM writes the indices it suggests before it starts the container, and the worker overwrites
 * them with those it actually uses once it holds them (claimed on its node, or given by YARN).
 * The node manager does not hand a container's environment back, so a new AM attempt that adopts
 * running workers reads them here, and {@code edl status} shows them. ZooKeeper rather than the
 * staging directory: both sides already hold a session, a write is small, and the job's
 * ZooKeeper subtree lives exactly as long as the job.
 */
public final class GpuIndexRecord {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GpuIndexRecord.class);
  private final CuratorFramework zk;
  private final String root;

  public GpuIndexRecord(CuratorFramework zk, String appId) {
    this.zk = zk;
    this.root = JobPaths.gpus(appId);
  }

  /**
   * By the AM before the container is started, so that an adopting attempt never misses it; by
   * the worker once it holds its devices.
   */
  public void write(String containerId, List<Integer> indices) throws Exception {
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
  public void forget(String containerId) {
    try {
      zk.delete().forPath(root + "/" + containerId);
    } catch (KeeperException.NoNodeException gone) {
      // never written (not launched) or already forgotten
    } catch (Exception e) {
      LOG.warn("Could not remove the GPU record of exited {}: {}", containerId, e.toString());
    }
  }

  public Optional<List<Integer>> read(String containerId) throws Exception {
    try {
      String text = new String(zk.getData().forPath(root + "/" + containerId), StandardCharsets.UTF_8);
      return Optional.of(text.isEmpty() ? List.of()
          : Arrays.stream(text.split(",")).map(Integer::valueOf).toList());
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }
}
