package org.edl.worker.coord.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.edl.job.JobPaths;
import org.edl.job.JobSpec;
import org.edl.testing.Await;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.coord.JobPosition;
import org.edl.worker.coord.JobRecord;
import org.edl.worker.coord.Member;
import org.edl.worker.coord.MemberRing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leader epochs and the record on a real ZooKeeper: only the candidate that holds the latch
 * claims an epoch, each claim is newer than the last, a superseded leadership can neither write
 * the record nor confirm itself, and nothing re-creates a finished job's nodes.
 */
class ZooKeeperLeaderStoreTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();
  private static int apps;

  private static JobSpec spec() {
    return JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu").build();
  }

  private static JobRecord record(long epoch) {
    return new JobRecord("c1", epoch, new MemberRing(1, List.of(new Member("c1", "h", 1), new Member("c2", "h", 2))),
        new JobPosition(5, 0, 60, 0, 1.5), null, JobPosition.START, List.of(), null, Map.of(), 2.0, false, null,
        null, null, Map.of());
  }

  /** A candidate in the job's election, and its store. */
  private record Candidate(CuratorFramework client, LeaderElection election, ZooKeeperLeaderStore store)
      implements AutoCloseable {
    static Candidate join(String appId, String address) throws Exception {
      CuratorFramework c = ZK.newClient();
      LeaderElection e = new LeaderElection(c, appId, address, Runnable::run);
      ZooKeeperLeaderStore s = new ZooKeeperLeaderStore(c, appId, spec(), e::ourPath, Duration.ofSeconds(10));
      s.prepare();
      e.start();
      return new Candidate(c, e, s);
    }

    @Override
    public void close() throws Exception {
      store.close();
      election.close();
      client.close();
    }
  }

  @Test
  void eachLeadershipClaimsANewerEpochAndASupersededOneCannotWriteOrConfirm() throws Exception {
    String appId = "application_3_" + (++apps);
    try (Candidate a = Candidate.join(appId, "h:1"); Candidate b = Candidate.join(appId, "h:2")) {
      // The latch orders candidates by the nodes it creates in the background: either may lead.
      Candidate first = awaitEither(a, b);
      Candidate second = first == a ? b : a;
      long e1 = first.store().claimEpoch();
      assertEquals(1, e1);
      assertTrue(first.store().stillCurrent(e1));
      first.store().publish(record(e1), why -> { });
      first.store().awaitPublished(WAIT);
      assertEquals(e1, second.store().read().orElseThrow().leaderEpoch());
      assertThrows(Exception.class, () -> second.store().claimEpoch(), "the candidate that does not lead claims nothing");

      first.election().close();
      awaitLeader(second.election());
      long e2 = second.store().claimEpoch();
      assertEquals(2, e2);

      BlockingQueue<String> superseded = new LinkedBlockingQueue<>();
      first.store().publish(record(e1), superseded::add);
      assertNotNull(superseded.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the old leadership's write is refused");
      assertEquals(e2 - 1, second.store().read().orElseThrow().leaderEpoch(), "and the record is the one before");
      awaitUnconfirmed(first.store(), e1, "a superseded leadership does not confirm itself");
      assertTrue(second.store().stillCurrent(e2));
    }
  }

  @Test
  void aLeaderThatOutlivesItsJobDoesNotRecreateTheJobsNodes() throws Exception {
    String appId = "application_3_" + (++apps);
    try (Candidate leader = Candidate.join(appId, "h:1")) {
      awaitLeader(leader.election());
      long epoch = leader.store().claimEpoch();
      leader.store().publish(record(epoch), why -> { });
      leader.store().awaitPublished(WAIT);
      // The ApplicationMaster's clean-up after the job ended.
      leader.client().delete().deletingChildrenIfNeeded().forPath(JobPaths.job(appId));
      leader.client().delete().forPath(JobPaths.epoch(appId));

      BlockingQueue<String> superseded = new LinkedBlockingQueue<>();
      leader.store().publish(record(epoch), superseded::add);
      assertNotNull(superseded.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
      assertNull(leader.client().checkExists().forPath(JobPaths.job(appId)), "the record was not re-created");
      awaitUnconfirmed(leader.store(), epoch, "a leadership whose job is gone does not confirm itself");
    }
  }

  /** stillCurrent trusts a recent confirmation for a moment; ask until that has passed. */
  private static void awaitUnconfirmed(ZooKeeperLeaderStore store, long epoch, String why) {
    Await.until(why + " (epoch " + epoch + " no longer current)", () -> !store.stillCurrent(epoch), WAIT);
  }

  private static Candidate awaitEither(Candidate a, Candidate b) {
    return Await.until("one of two candidates to be elected",
        () -> a.election().hasLeadership() ? a : b.election().hasLeadership() ? b : null, leader -> true, WAIT);
  }

  private static void awaitLeader(LeaderElection e) {
    Await.until("the candidate to be elected", e::hasLeadership, WAIT);
  }
}
