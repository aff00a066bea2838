package org.edl.worker.coord;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.edl.job.JobPaths;

/**
 * Where the job's leader listens, read from the election without taking part in it: newcomers
 * find the leader before they may be candidates, and members follow a successor with it.
 */
public final class LeaderFinder {
  private final CuratorFramework client;
  private final String latchPath;

  public LeaderFinder(CuratorFramework client, String appId) {
    this.client = client;
    this.latchPath = JobPaths.leader(appId);
  }

  /** The elected leader's coordinator address, waiting (on watches) until one is elected. */
  public String leaderAddress(Duration timeout) throws Exception {
    return LeaderElection.leaderAddress(client, latchPath, timeout);
  }

  /** The address of a leader other than {@code previous}: its successor, once elected. */
  public String leaderAddressOtherThan(String previous, Duration timeout) throws Exception {
    return LeaderElection.leaderAddressOtherThan(client, latchPath, previous, timeout);
  }
}
