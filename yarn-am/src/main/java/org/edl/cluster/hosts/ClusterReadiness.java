package org.edl.cluster.hosts;

import java.io.IOException;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits, as a client on this machine, until the multi-host cluster serves: the ZooKeeper ensemble
 * answers, HDFS has every DataNode and has left safe mode, YARN has every NodeManager running.
 * Fails at once when a daemon exits, naming its log.
 */
final class ClusterReadiness {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterReadiness.class);
  private static final Duration POLL = Duration.ofMillis(500);

  private final MultiHostCluster cluster;

  ClusterReadiness(MultiHostCluster cluster) {
    this.cluster = cluster;
  }

  void await(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int hosts = cluster.workerHosts().size();
    Configuration conf = cluster.configuration();
    // A client gives up on a daemon that is not up yet quickly, and asks again on the next poll.
    conf.setInt("ipc.client.connect.max.retries", 0);
    conf.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
    conf.setLong("yarn.resourcemanager.connect.max-wait.ms", 1000);
    conf.setLong("yarn.resourcemanager.connect.retry-interval.ms", 500);
    String waitingFor = "the ZooKeeper ensemble";
    try (CuratorFramework zk = CuratorFrameworkFactory.newClient(cluster.zooKeeperConnect(), 5000, 2000,
        new RetryOneTime(500))) {
      zk.start();
      awaitUntil(deadline, waitingFor, () -> zk.blockUntilConnected(1, java.util.concurrent.TimeUnit.SECONDS)
          && zk.checkExists().forPath("/") != null);
      waitingFor = hosts + " DataNodes and HDFS out of safe mode";
      try (FileSystem fs = FileSystem.newInstance(conf)) {
        DistributedFileSystem dfs = (DistributedFileSystem) fs;
        awaitUntil(deadline, waitingFor, () -> dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE).length == hosts
            && !dfs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_GET));
      }
      waitingFor = hosts + " NodeManagers RUNNING";
      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(conf);
      yarn.start();
      try {
        awaitUntil(deadline, waitingFor, () -> yarn.getNodeReports(NodeState.RUNNING).size() == hosts);
      } finally {
        yarn.stop();
      }
    }
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private void awaitUntil(long deadline, String what, Check check) throws IOException {
    Exception last = null;
    while (System.nanoTime() < deadline) {
      var dead = cluster.deadDaemon();
      if (dead.isPresent()) {
        throw new IOException("the multi-host cluster did not start: " + dead.get());
      }
      try {
        if (check.holds()) {
          LOG.debug("Ready: {}", what);
          return;
        }
        last = null;
      } catch (Exception e) {
        last = e;
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + what, e);
      }
    }
    throw new IOException("the multi-host cluster did not start: still waiting for " + what
        + (last == null ? "" : " (last: " + last + ")") + "; daemon logs in " + cluster.dir().resolve("logs"));
  }
}
