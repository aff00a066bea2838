package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.testing.Await;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.coord.zk.MemberPresence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One worker of three dies (or loses its ZooKeeper session) in a running job, with workers as
 * threads over a real ZooKeeper, real TCP and the local file system. The job finishes on the two
 * survivors, which end with identical parameters, and the leader's sample count is exactly what
 * an uninterrupted run counts: consistent recovery goes back to the newest periodic checkpoint
 * and redoes the steps after it, approximate recovery redoes only the batch in flight.
 */
class FailureRecoveryTest {
  static final String DATA = "synthetic:samples=600,features=12,classes=4,seed=11";
  static final int STEPS = 30;
  static final int BATCH = 24;
  static final int EVERY = 6;
  /** The step in flight when the victim dies: the others have trained every step before it. */
  static final long FAIL_AT = 15;
  private static final AtomicInteger APPS = new AtomicInteger();
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @Test
  void consistentRecoveryGoesBackToTheNewestCheckpointAndCountsNothingTwice() throws Exception {
    try (ElasticJob job = job(Recovery.Mode.CONSISTENT)) {
      List<String> ids = startAndHold(job);
      String victim = follower(job, ids);
      job.crash(victim);
      job.release();

      List<Worker.Outcome> survivors = survivors(job, ids, victim);
      long restart = newestCheckpointStep(job);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = onlyRecovery(job, o.workerId());
        assertEquals("consistent", r.mode());
        assertEquals(List.of(victim), r.failed());
        assertEquals(FAIL_AT - 1, r.lastCompletedStep(), "its model held the step before the one in flight");
        assertEquals(restart, r.nextStep(), "back to the newest checkpoint");
        assertTrue(r.checkpoint().endsWith(Checkpoint.nameFor(restart)), r.checkpoint());
        // The steps after the checkpoint and the one in flight are begun twice; no other.
        assertBegunTwice(job, o.workerId(), restart, FAIL_AT);
      }
      assertFinishedIdenticalAndCountedOnce(survivors);
    }
  }

  /**
   * No checkpoint yet: consistent recovery goes back to the job's starting parameters, which each
   * worker builds again from the seed rather than keeping a copy. The survivors end where an
   * uninterrupted run of the same job ends (within float rounding: two workers sum the global
   * batch's gradients in other groups than three).
   */
  @Test
  void consistentRecoveryBeforeAnyCheckpointStartsAgainFromTheSeededModelAndEndsAsAnUninterruptedRun()
      throws Exception {
    JobSpec noCheckpoints = spec("unused", Recovery.Mode.CONSISTENT).toBuilder().model("mlp")
        .checkpoints(0, 0, 3).build();
    float[] reference;
    try (ElasticJob job = job(noCheckpoints)) {
      List<String> ids = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        ids.add(ElasticJob.id(job.appId, i));
      }
      ids.forEach(job::start);
      reference = job.outcome(ids.get(0)).parameters();
    }
    try (ElasticJob job = job(noCheckpoints)) {
      List<String> ids = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        ids.add(ElasticJob.id(job.appId, i));
      }
      job.holdBefore(FAIL_AT);
      ids.forEach(job::start);
      for (String id : ids) {
        job.awaitTrained(id, FAIL_AT - 1);
      }
      String victim = follower(job, ids);
      job.crash(victim);
      job.release();

      List<Worker.Outcome> survivors = survivors(job, ids, victim);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = onlyRecovery(job, o.workerId());
        assertEquals(0, r.nextStep(), "no checkpoint: back to the start");
        assertNull(r.checkpoint());
        assertBegunTwice(job, o.workerId(), 0, FAIL_AT);
      }
      assertFinishedIdenticalAndCountedOnce(survivors);
      float[] recovered = survivors.get(0).parameters();
      assertEquals(reference.length, recovered.length);
      for (int i = 0; i < reference.length; i++) {
        assertEquals(reference[i], recovered[i], 1e-4, "parameter " + i);
      }
    }
  }

  @Test
  void approximateRecoveryRedoesOnlyTheBatchInFlight() throws Exception {
    try (ElasticJob job = job(Recovery.Mode.APPROXIMATE)) {
      List<String> ids = startAndHold(job);
      String victim = follower(job, ids);
      job.crash(victim);
      job.release();

      List<Worker.Outcome> survivors = survivors(job, ids, victim);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = onlyRecovery(job, o.workerId());
        assertEquals("approximate", r.mode());
        assertEquals(List.of(victim), r.failed());
        assertEquals(FAIL_AT, r.nextStep(), "on from the step in flight");
        assertNull(r.source(), "the survivors all held the step before it: no model is sent");
        assertBegunTwice(job, o.workerId(), FAIL_AT, FAIL_AT);
      }
      assertFinishedIdenticalAndCountedOnce(survivors);
    }
  }

  @Test
  void whenTheLeaderDiesASuccessorRebuildsTheJobFromZooKeeperAndTheCheckpoint() throws Exception {
    try (ElasticJob job = job(Recovery.Mode.CONSISTENT)) {
      List<String> ids = startAndHold(job);
      String leader = ids.stream().filter(id -> job.worker(id).isLeading()).findFirst().orElseThrow();
      job.crash(leader);
      job.release();

      List<Worker.Outcome> survivors = survivors(job, ids, leader);
      long restart = newestCheckpointStep(job);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = onlyRecovery(job, o.workerId());
        assertEquals(List.of(leader), r.failed());
        assertEquals(restart, r.nextStep());
        assertBegunTwice(job, o.workerId(), restart, FAIL_AT);
      }
      assertFinishedIdenticalAndCountedOnce(survivors);
    }
  }

  @Test
  void whenTheLeaderDiesInApproximateModeTheSurvivorsGoOnFromTheBatchInFlight() throws Exception {
    try (ElasticJob job = job(Recovery.Mode.APPROXIMATE)) {
      List<String> ids = startAndHold(job);
      String leader = ids.stream().filter(id -> job.worker(id).isLeading()).findFirst().orElseThrow();
      job.crash(leader);
      job.release();

      List<Worker.Outcome> survivors = survivors(job, ids, leader);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = onlyRecovery(job, o.workerId());
        assertEquals(List.of(leader), r.failed());
        assertEquals(FAIL_AT, r.nextStep());
        assertBegunTwice(job, o.workerId(), FAIL_AT, FAIL_AT);
      }
      assertFinishedIdenticalAndCountedOnce(survivors);
    }
  }

  @Test
  void aWorkerWhoseSessionExpiresIsFencedAndTheOthersRecover() throws Exception {
    try (ElasticJob job = job(Recovery.Mode.CONSISTENT)) {
      List<String> ids = startAndHold(job);
      String victim = follower(job, ids);
      expireSession(job.worker(victim).zooKeeper());
      awaitGone(job.worker(ids.stream().filter(id -> !id.equals(victim)).findFirst().orElseThrow()).zooKeeper(),
          MemberPresence.membersPath(job.appId) + "/" + victim);
      job.release();

      // Alive but declared failed: refused at its next report, it ends with the fenced error.
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> job.run(victim).get(ElasticJob.WAIT.toMillis(), TimeUnit.MILLISECONDS));
      assertInstanceOf(FencedException.class, e.getCause());
      List<Worker.Outcome> survivors = survivors(job, ids, victim);
      long restart = newestCheckpointStep(job);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = onlyRecovery(job, o.workerId());
        assertEquals(List.of(victim), r.failed());
        assertEquals(restart, r.nextStep());
      }
      assertFinishedIdenticalAndCountedOnce(survivors);
    }
  }

  /**
   * Ends the client's session on the server, as a long network partition does: another
   * connection with the same session id and password closes it (the client learns of it only
   * when it reconnects).
   */
  private static void expireSession(CuratorFramework client) throws Exception {
    ZooKeeper current = client.getZookeeperClient().getZooKeeper();
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper other = new ZooKeeper(ZK.connectString(), 10_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    }, current.getSessionId(), current.getSessionPasswd());
    try {
      assertTrue(connected.await(ElasticJob.WAIT.toMillis(), TimeUnit.MILLISECONDS), "second connection");
    } finally {
      other.close();
    }
  }

  private static void awaitGone(CuratorFramework client, String path) {
    Await.until(path + " to be gone", () -> client.checkExists().forPath(path) == null, ElasticJob.WAIT);
  }

  static final Duration RPC_TIMEOUT = Duration.ofSeconds(20);
  static final Duration ZK_SESSION_TIMEOUT = Duration.ofSeconds(4);

  static JobSpec spec(String output, Recovery.Mode mode) {
    return JobSpec.builder().name("recovery").model("softmax").data(DATA).format("auto").workers(3)
        .minWorkers(1).maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(BATCH).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.3).hidden(16).seed(3)
        .backend("cpu").output(output).checkpoints(EVERY, 0, 3).recovery(new Recovery(mode, 5_000, 3))
        .build();
  }

  private ElasticJob job(Recovery.Mode mode) {
    return job(ZK.connectString(), out, mode);
  }

  static ElasticJob job(String zkConnect, Path out, Recovery.Mode mode) {
    return job(zkConnect, out, spec("unused", mode));
  }

  private ElasticJob job(JobSpec spec) {
    return job(ZK.connectString(), out, spec);
  }

  /** A job of {@code spec} writing under {@code out}. */
  static ElasticJob job(String zkConnect, Path out, JobSpec spec) {
    String appId = "application_7_" + APPS.incrementAndGet();
    ElasticJob job = new ElasticJob(zkConnect, appId, spec.toBuilder().output(out.resolve(appId).toUri().toString())
        .build(), Duration.ofMillis(5));
    job.rpcTimeout = RPC_TIMEOUT;
    job.zkSessionTimeout = ZK_SESSION_TIMEOUT;
    return job;
  }

  /**
   * The third worker runs in a JVM of its own (this test's class path) and is killed with
   * SIGKILL while the other two are in the all-reduce of the step it was about to begin: its
   * sockets are reset by the kernel, its ZooKeeper session ends only after the session timeout.
   */
  @Test
  void aWorkerKilledWithSigkillMidBatchIsRecoveredFromConsistently() throws Exception {
    try (ElasticJob job = job(Recovery.Mode.CONSISTENT)) {
      List<String> ids = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2));
      String victim = ElasticJob.id(job.appId, 3);
      job.holdBefore(EVERY + 1);
      for (String id : ids) {
        job.start(id);
        job.awaitRegistered(id);
      }
      try (ChildWorker child = ChildWorker.start(job, victim, ZK.connectString(), "consistent", FAIL_AT,
          ZK_SESSION_TIMEOUT)) {
        job.awaitCheckpoints(1);
        job.holdBefore(FAIL_AT);
        job.awaitCheckpoints(2);
        for (String id : ids) {
          job.awaitTrained(id, FAIL_AT - 1);
        }
        child.await(ChildWorkerMain.HOLDING + FAIL_AT, ElasticJob.WAIT);
        // The two in-process workers begin the step and wait in its all-reduce for the child.
        job.release();
        for (String id : ids) {
          job.awaitBegun(id, FAIL_AT);
        }
        child.kill();
        assertEquals(137, child.exitStatus(ElasticJob.WAIT), "killed by SIGKILL");
      }

      List<Worker.Outcome> survivors = survivors(job, ids, victim);
      long restart = newestCheckpointStep(job);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = onlyRecovery(job, o.workerId());
        assertEquals(List.of(victim), r.failed());
        assertEquals(FAIL_AT - 1, r.lastCompletedStep());
        assertEquals(restart, r.nextStep());
        assertBegunTwice(job, o.workerId(), restart, FAIL_AT);
      }
      assertFinishedIdenticalAndCountedOnce(survivors);
    }
  }

  /** Three workers trained every step before FAIL_AT and wait before it; two checkpoints exist. */
  static List<String> startAndHold(ElasticJob job) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      ids.add(ElasticJob.id(job.appId, i));
    }
    // Held at the first checkpoint step until its write is done (a due checkpoint waits while
    // the one before is still being written).
    job.holdBefore(EVERY + 1);
    ids.forEach(job::start);
    job.awaitCheckpoints(1);
    // The second is due at step 12; should the first one's write still look unfinished then,
    // it is taken a step or two later, still before FAIL_AT (the assertions read which).
    job.holdBefore(FAIL_AT);
    job.awaitCheckpoints(2);
    for (String id : ids) {
      job.awaitTrained(id, FAIL_AT - 1);
    }
    return ids;
  }

  /** A worker that does not lead (the leader's own failure is another story). */
  static String follower(ElasticJob job, List<String> ids) {
    List<String> reversed = new ArrayList<>(ids);
    Collections.reverse(reversed);
    return reversed.stream().filter(id -> !job.worker(id).isLeading()).findFirst().orElseThrow();
  }

  static List<Worker.Outcome> survivors(ElasticJob job, List<String> ids, String victim) throws Exception {
    List<Worker.Outcome> survivors = new ArrayList<>();
    for (String id : ids) {
      if (!id.equals(victim)) {
        survivors.add(job.outcome(id));
      }
    }
    return survivors;
  }

  static long newestCheckpointStep(ElasticJob job) {
    String newest = job.checkpoints.stream().filter(p -> stepOf(p) <= FAIL_AT)
        .max((a, b) -> Long.compare(stepOf(a), stepOf(b))).orElseThrow();
    return stepOf(newest);
  }

  static long stepOf(String checkpoint) {
    return Long.parseLong(checkpoint.substring(checkpoint.lastIndexOf('-') + 1));
  }

  static RecoveryRecord onlyRecovery(ElasticJob job, String workerId) {
    List<RecoveryRecord> r = job.recoveries.getOrDefault(workerId, List.of());
    assertEquals(1, r.size(), workerId + " recovered once: " + r);
    return r.get(0);
  }

  /** Steps {@code from..to} begun exactly twice by the worker, every other step exactly once. */
  static void assertBegunTwice(ElasticJob job, String workerId, long from, long to) {
    List<Long> begun = job.begun.get(workerId);
    for (long step = 0; step < STEPS; step++) {
      long s = step;
      long times = begun.stream().filter(b -> b == s).count();
      assertEquals(s >= from && s <= to ? 2 : 1, times, workerId + " began step " + s + " " + times + " times");
    }
  }

  static void assertFinishedIdenticalAndCountedOnce(List<Worker.Outcome> survivors) {
    for (Worker.Outcome o : survivors) {
      assertEquals(Worker.Ending.FINISHED, o.ending(), o.workerId());
      assertEquals(STEPS, o.nextStep(), o.workerId());
      assertEquals(2, o.workers(), o.workerId());
    }
    ElasticScalingTest.assertIdentical(survivors);
    Worker.Outcome leader = survivors.stream().filter(Worker.Outcome::leader).findFirst().orElseThrow();
    assertEquals((long) STEPS * BATCH, leader.samplesSeen(), "samples the completed steps trained");
  }
}
