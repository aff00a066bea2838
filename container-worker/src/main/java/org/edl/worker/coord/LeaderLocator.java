package org.edl.worker.coord;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.edl.worker.security.JobSecret;

/**
 * How a process outside the ring (the ApplicationMaster, a test) reaches a job's leader: read the
 * elected coordinator address under {@code /edl/<appId>/leader} and connect with the job's
 * secret. Scale-in is then {@code connect(...).leave(containerId)} per container.
 */
public final class LeaderLocator {
  private LeaderLocator() {}

  /**
   * @param zk a started Curator client of the job's ZooKeeper
   * @throws java.util.concurrent.TimeoutException when no leader is elected within {@code timeout}
   */
  public static CoordinatorClient connect(CuratorFramework zk, String appId, JobSecret secret,
      Duration timeout) throws Exception {
    String address = LeaderElection.leaderAddress(zk, LeaderElection.latchPath(appId), timeout);
    return CoordinatorClient.connect(address, secret, timeout);
  }
}
