package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.edl.testing.ZooKeeperServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A job's ZooKeeper nodes against other users, on a real ZooKeeper. */
class JobZooKeeperAclTest {
  private static final String APP = "application_1_0042";

  @RegisterExtension
  final ZooKeeperServer zk = new ZooKeeperServer();

  private CuratorFramework client(JobZooKeeperAcl acl) {
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder().connectString(zk.connectString())
        .retryPolicy(new RetryOneTime(100));
    CuratorFramework c = (acl == null ? b : acl.applyTo(b)).build();
    c.start();
    return c;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void onlyTheJobsOwnProcessesChangeItsNodesAndAnyoneReadsThem() throws Exception {
    JobSecret secret = JobSecret.generate();
    try (CuratorFramework worker = client(JobZooKeeperAcl.of(APP, secret));
        CuratorFramework am = client(JobZooKeeperAcl.of(APP, secret));
        CuratorFramework stranger = client(null);
        CuratorFramework otherJob = client(JobZooKeeperAcl.of(APP, JobSecret.generate()))) {
      worker.create().creatingParentsIfNeeded().forPath(JobPaths.job(APP), bytes("leader at a:1"));
      worker.create().withMode(CreateMode.EPHEMERAL).forPath(JobPaths.members(APP), bytes(""));
      assertEquals(JobZooKeeperAcl.of(APP, secret).acl(), worker.getACL().forPath(JobPaths.job(APP)));
      assertEquals(JobZooKeeperAcl.of(APP, secret).acl(), worker.getACL().forPath(JobPaths.root(APP)),
          "the parent Curator created on the way has the job's ACL too");
      assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, worker.getACL().forPath(JobPaths.ROOT), "every job may add its subtree");

      am.setData().forPath(JobPaths.job(APP), bytes("leader at b:2"));
      assertArrayEquals(bytes("leader at b:2"), stranger.getData().forPath(JobPaths.job(APP)), "anyone may read");
      for (CuratorFramework intruder : new CuratorFramework[] {stranger, otherJob}) {
        assertThrows(KeeperException.NoAuthException.class,
            () -> intruder.setData().forPath(JobPaths.job(APP), bytes("leader at evil:6")));
        assertThrows(KeeperException.NoAuthException.class, () -> intruder.delete().forPath(JobPaths.members(APP)));
        assertThrows(KeeperException.NoAuthException.class,
            () -> intruder.create().forPath(JobPaths.fleet(APP), bytes("intent")));
      }
      assertNull(stranger.checkExists().forPath(JobPaths.fleet(APP)));
      assertArrayEquals(bytes("leader at b:2"), stranger.getData().forPath(JobPaths.job(APP)));

      // A session opened without the identity gains it later (what `edl cleanup` does per job).
      JobZooKeeperAcl.of(APP, secret).authenticate(stranger);
      stranger.delete().deletingChildrenIfNeeded().forPath(JobPaths.root(APP));
      assertNull(worker.checkExists().forPath(JobPaths.root(APP)));
    }
  }

  @Test
  void anotherJobsPathsKeepTheOpenAcl() {
    JobZooKeeperAcl acl = JobZooKeeperAcl.of(APP, JobSecret.generate());
    assertEquals(acl.acl(), acl.getAclForPath("/edl/" + APP + "/gpus/c1"));
    assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, acl.getAclForPath("/edl/" + APP + "0/job"), "a longer id is another job");
    assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, acl.getAclForPath("/edl"));
  }
}
