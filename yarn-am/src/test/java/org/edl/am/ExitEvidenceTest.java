package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.edl.job.JobPaths;
import org.edl.testing.Await;
import org.edl.testing.ZooKeeperServer;
import org.edl.worker.coord.zk.LeaderElection;
import org.edl.worker.coord.zk.MemberPresence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker whose container exited is withdrawn from the job's ZooKeeper nodes by the AM at once,
 * on a real ZooKeeper, with real worker sessions that stay open (as a killed process's session
 * does until it expires).
 */
class ExitEvidenceTest {
  private static final String APP = "application_5_0001";

  @RegisterExtension
  final ZooKeeperServer zk = new ZooKeeperServer();

  @Test
  void theDeadLeadersCandidacyAndPresenceGoSoTheNextCandidateLeadsNow() throws Exception {
    try (CuratorFramework leaderSession = zk.newClient(); CuratorFramework followerSession = zk.newClient();
        CuratorFramework am = zk.newClient()) {
      List<Set<String>> seen = new CopyOnWriteArrayList<>();
      MemberPresence leaderPresence = MemberPresence.start(leaderSession, APP, "c1", "h1:100", p -> { });
      MemberPresence followerPresence = MemberPresence.start(followerSession, APP, "c2", "h2:200", seen::add);
      LeaderLatch leader = new LeaderLatch(leaderSession, LeaderElection.latchPath(APP), "h1:100");
      leader.start();
      assertTrue(leader.await(30, TimeUnit.SECONDS));
      LeaderLatch follower = new LeaderLatch(followerSession, LeaderElection.latchPath(APP), "h2:200");
      follower.start();
      Await.until("the follower's candidacy", () -> am.getChildren().forPath(JobPaths.leader(APP)).size() == 2);
      assertFalse(follower.hasLeadership());

      // c1's process is gone; its session (leaderSession) would live on until it expires.
      new ExitEvidence(am, APP, Runnable::run).withdraw("c1");

      assertTrue(follower.await(30, TimeUnit.SECONDS), "the next candidate leads without waiting for the session");
      assertNull(am.checkExists().forPath(JobPaths.members(APP) + "/c1"));
      assertNotNull(am.checkExists().forPath(JobPaths.members(APP) + "/c2"));
      Await.until("the survivors to see c1 gone", () -> !seen.isEmpty() && seen.get(seen.size() - 1).equals(Set.of("c2")));
      assertEquals(1, am.getChildren().forPath(JobPaths.leader(APP)).size());

      new ExitEvidence(am, APP, Runnable::run).withdraw("c1");
      new ExitEvidence(am, APP, Runnable::run).withdraw("c9");
      assertTrue(follower.hasLeadership(), "withdrawing one already gone, or never there, changes nothing");
      follower.close();
      leaderPresence.close();
      followerPresence.close();
    }
  }
}
