package org.edl.job;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Where the ApplicationMaster's job-control endpoint listens, under {@code /edl/<appId>/am}. A
 * new AM attempt listens on a new {@code host:port}, while the workers it adopts were launched
 * with the first attempt's in their environment: every attempt writes its address here, and a
 * leader whose report fails reads it again. The node is ephemeral so that a dead attempt's
 * address does not outlive it for long (its ZooKeeper session expires).
 */
public final class AmAddressRecord {
  private AmAddressRecord() {}

  /** {@code /edl/<appId>/am}. */
  public static String path(String appId) {
    return JobPaths.am(appId);
  }

  /**
   * Writes {@code address} as this attempt's; a node left by an earlier attempt whose session
   * has not expired yet is replaced.
   */
  public static void publish(CuratorFramework zk, String appId, HostPort address) throws Exception {
    byte[] data = address.toString().getBytes(StandardCharsets.UTF_8);
    String path = path(appId);
    try {
      zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, data);
    } catch (KeeperException.NodeExistsException e) {
      zk.delete().forPath(path);
      zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, data);
    }
  }

  /** The latest attempt's address, if one is published. */
  public static Optional<HostPort> read(CuratorFramework zk, String appId) throws Exception {
    try {
      return Optional.of(HostPort.parse(new String(zk.getData().forPath(path(appId)), StandardCharsets.UTF_8)));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }
}
