package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.rpc.RefusalListener;
import org.edl.job.rpc.RpcServer;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.thrift.Coordinator;
import org.edl.thrift.EdlError;
import org.edl.thrift.Registration;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.coord.rpc.CoordinatorService;
import org.edl.worker.coord.zk.LeaderElection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The AM's side of a migration against a real leader: a {@link CoordinatorService} served over
 * Thrift and elected through a real ZooKeeper ({@link ZooKeeperServer}), found the way the AM finds
 * it. Answers come back on the executor given as the main thread (here: a queue).
 */
class LeaderWorkerRemovalTest {
  /** A server of its own per test: both tests elect a leader for the same application. */
  @RegisterExtension
  final ZooKeeperServer zk = new ZooKeeperServer();

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String APP = "application_9_1";

  private final BlockingQueue<Runnable> mainThread = new LinkedBlockingQueue<>();

  /**
   * The replacement is held by the leader before any newcomer exists: the newcomer it admits at
   * max-workers is then switched in together with the leaver. A replacement the leader refuses
   * arrives as refused, naming the field.
   */
  @Test
  void theLeaderHoldsTheReplacementUntilTheNewcomerComes() throws Exception {
    JobSecret secret = JobSecret.generate();
    JobSpec spec = JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(1000).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu").build();
    CoordinatorService leader = new CoordinatorService(spec, System::nanoTime, Duration.ofMillis(50), "c1");
    leader.leadership().lead();
    leader.registerWorker(new WorkerInfo("c1", "h1", 7001));
    leader.registerWorker(new WorkerInfo("c2", "h1", 7002));
    try (CuratorFramework client = zk.newClient();
        RpcServer rpc = RpcServer.start("coordinator", new Coordinator.Processor<>(leader), "127.0.0.1",
            0, secret, WAIT, RefusalListener.NONE)) {
      try (LeaderElection election = new LeaderElection(client, APP, "127.0.0.1:" + rpc.port(), Runnable::run);
          LeaderWorkerRemoval removal = new LeaderWorkerRemoval(client, APP, secret, WAIT, mainThread::add)) {
        election.start();
        Answer held = new Answer();
        removal.replace(List.of("c2"), 1, held);
        assertEquals(-1L, held.next());

        Registration newcomer = leader.registerWorker(new WorkerInfo("c3", "h3", 7003));
        assertTrue(newcomer.isPending(), "admitted at max-workers=2: c2 counts as gone");
        leader.ready("c3", newcomer.getTopology().getVersion());
        var order = leader.awaitSwitch("c3", newcomer.getTopology().getVersion(), 1000);
        assertTrue(order.getAtStep() >= 0);
        assertEquals(List.of("c3"), order.getJoiners());
        assertEquals(List.of("c2"), order.getLeavers());

        Answer refused = new Answer();
        removal.replace(List.of("c9"), 1, refused);
        EdlError e = assertInstanceOf(EdlError.class, refused.next());
        assertEquals("leavers", e.getField());
      }
    }
  }

  /**
   * The leader takes the replacement but its answer is lost (here: the call fails after the
   * leader stored it). The AM cannot tell, so it withdraws the replacement before it reports the
   * refusal: afterwards the leader holds nothing that could take c2 along with a later newcomer,
   * and at max-workers such a newcomer is refused again.
   */
  @Test
  void aReplacementWhoseAnswerIsLostIsWithdrawn() throws Exception {
    JobSecret secret = JobSecret.generate();
    JobSpec spec = JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(1000).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu").build();
    CoordinatorService leader = new CoordinatorService(spec, System::nanoTime, Duration.ofMillis(50), "c1");
    leader.leadership().lead();
    leader.registerWorker(new WorkerInfo("c1", "h1", 7001));
    leader.registerWorker(new WorkerInfo("c2", "h1", 7002));
    Coordinator.Iface losesReplaceAnswers = (Coordinator.Iface) Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {Coordinator.Iface.class}, (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(leader, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().equals("replace")) {
            throw new IllegalStateException("the answer to replace is lost");
          }
          return result;
        });
    try (CuratorFramework client = zk.newClient();
        RpcServer rpc = RpcServer.start("coordinator", new Coordinator.Processor<>(losesReplaceAnswers),
            "127.0.0.1", 0, secret, WAIT, RefusalListener.NONE)) {
      try (LeaderElection election = new LeaderElection(client, APP, "127.0.0.1:" + rpc.port(), Runnable::run);
          LeaderWorkerRemoval removal = new LeaderWorkerRemoval(client, APP, secret, WAIT, mainThread::add)) {
        election.start();
        Answer lost = new Answer();
        removal.replace(List.of("c2"), 1, lost);
        assertInstanceOf(Exception.class, lost.next());
        assertFalse(leader.cancelReplace(List.of("c2")), "already withdrawn by the AM");
        EdlError full = assertThrows(EdlError.class, () -> leader.registerWorker(new WorkerInfo("c3", "h3", 7003)));
        assertEquals("workerId", full.getField());
      }
    }
  }

  /** Records one answer; {@link #next} runs the main thread until it came. */
  private final class Answer implements WorkerRemoval.ReplacementAnswer {
    Object value;

    @Override
    public void accepted(long atStep) {
      value = atStep;
    }

    @Override
    public void refused(Exception cause) {
      value = cause;
    }

    Object next() throws InterruptedException {
      Runnable r = mainThread.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(r, "no answer on the main thread");
      r.run();
      return value;
    }
  }
}
