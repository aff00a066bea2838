package org.edl.am;

import java.net.URI;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.zookeeper.KeeperException;
import org.edl.job.JobPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a job leaves behind once its AM has unregistered: its ZooKeeper subtree
 * ({@code /edl/<appId>}: the AM's address, the workers' GPU indices, the change under way, the
 * leader's latch and records) and its staging directory (the jars, the job file and the job
 * secret). Neither is needed any more: the RM keeps the final status and diagnostics, and no
 * later attempt comes. While the job runs both are (a new AM attempt localizes from the staging
 * directory; {@code edl status} reads the secret there), so this runs only after a successful
 * unregistration. The client that submitted the job deletes the staging directory too when it
 * follows the job to its end; this covers one that stopped following. Best effort: a failure
 * is logged, the job's outcome stands.
 */
final class JobCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(JobCleanup.class);

  private JobCleanup() {}

  static void zooKeeper(CuratorFramework zk, String appId) {
    String root = JobPaths.root(appId);
    try {
      zk.delete().deletingChildrenIfNeeded().forPath(root);
      LOG.info("Deleted {} from ZooKeeper", root);
    } catch (KeeperException.NoNodeException e) {
      // Nothing was recorded, or it is gone already.
    } catch (Exception e) {
      LOG.warn("Could not delete {} from ZooKeeper: {}", root, e.toString());
    }
  }

  static void stagingDirectory(URI stagingDir, Configuration conf) {
    Path staging = new Path(stagingDir);
    try {
      if (staging.getFileSystem(conf).delete(staging, true)) {
        LOG.info("Deleted the staging directory {}", staging);
      }
    } catch (Exception e) {
      LOG.warn("Could not delete the staging directory {}: {}", staging, e.toString());
    }
  }
}
