package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.edl.testing.ZooKeeperServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class JobCleanupTest {
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path tmp;

  @Test
  void deletesTheJobsZooKeeperSubtreeAndNoOtherJobsAndToleratesItsAbsence() throws Exception {
    try (CuratorFramework zk = ZK.newClient()) {
      zk.create().creatingParentsIfNeeded().forPath("/edl/application_1_0001/am", "h:1".getBytes());
      zk.create().creatingParentsIfNeeded().forPath("/edl/application_1_0001/gpus/c1", "0".getBytes());
      zk.create().creatingParentsIfNeeded().forPath("/edl/application_1_0002/am", "h:2".getBytes());

      JobCleanup.zooKeeper(zk, "application_1_0001");
      assertNull(zk.checkExists().forPath("/edl/application_1_0001"));
      assertNotNull(zk.checkExists().forPath("/edl/application_1_0002/am"), "another job's records stay");
      JobCleanup.zooKeeper(zk, "application_1_0001");
    }
  }

  @Test
  void deletesTheStagingDirectoryWithTheSecretAndToleratesItsAbsence() throws Exception {
    Path staging = Files.createDirectories(tmp.resolve(".edl/application_1_0001"));
    Files.writeString(staging.resolve(StagingLayout.JOB_SECRET), "secret");
    Files.writeString(tmp.resolve("keep"), "another file");

    JobCleanup.stagingDirectory(staging.toUri(), new Configuration());
    assertFalse(Files.exists(staging));
    assertTrue(Files.exists(tmp.resolve("keep")));
    JobCleanup.stagingDirectory(staging.toUri(), new Configuration());
  }
}
