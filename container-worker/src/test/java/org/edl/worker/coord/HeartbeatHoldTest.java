package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.HeartbeatReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.coord.rpc.CoordinatorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The leader holds a heartbeat until it has news for the member, so a switch reaches the members
 * that stay when it is scheduled, not when their next beat happens to come. The clock is fixed:
 * a held call can only end with news.
 */
class HeartbeatHoldTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final CoordinatorService service =
      new CoordinatorService(CoordTesting.spec(2, 1, 3, 1000), now::get, Duration.ofMillis(50), "c1");

  @AfterEach
  void retire() {
    service.leadership().retire();
  }

  private void runningWithANewcomer() throws Exception {
    assertTrue(service.leadership().lead());
    service.registerWorker(new WorkerInfo("c1", "127.0.0.1", 7001));
    service.registerWorker(new WorkerInfo("c2", "127.0.0.1", 7002));
    for (String id : new String[] {"c1", "c2"}) {
      SyncReport r = new SyncReport(id, 0, 1.0, 0.01, 6);
      r.setLeaderEpoch(1);
      service.sync(r);
    }
    assertTrue(service.registerWorker(new WorkerInfo("c3", "127.0.0.1", 7003)).isPending());
  }

  @Test
  void aHeldHeartbeatReturnsWithTheSwitchOnceTheNewcomerIsReady() throws Exception {
    runningWithANewcomer();
    CompletableFuture<HeartbeatReply> held = CompletableFuture.supplyAsync(() -> {
      try {
        return service.heartbeatAwaiting("c2", 1, 1, -1, 60_000);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    // With the clock fixed, nothing but news ends the call.
    assertThrows(TimeoutException.class, () -> held.get(300, TimeUnit.MILLISECONDS),
        "no news yet: the leader holds the beat");

    service.ready("c3", 2);
    HeartbeatReply reply = held.get(10, TimeUnit.SECONDS);
    assertTrue(reply.isSetSwitchOrder());
    assertEquals(2, reply.getSwitchOrder().getTopologyVersion());
    assertEquals("c1", reply.getSwitchOrder().getBroadcasterId());
    assertEquals(-1, reply.getAbandonRing());

    HeartbeatReply known = service.heartbeatAwaiting("c2", 1, 1, 2, 0);
    assertFalse(known.isSetSwitchOrder(), "the member knows v2: nothing new");
    assertTrue(service.heartbeatAwaiting("c2", 1, 1, 1, 0).isSetSwitchOrder());
  }

  @Test
  void aHeldCallEndedByTheServerStoppingTellsTheMemberToLookForAnotherLeader() throws Exception {
    runningWithANewcomer();
    java.util.concurrent.atomic.AtomicReference<Exception> answer = new java.util.concurrent.atomic.AtomicReference<>();
    Thread serverThread = new Thread(() -> {
      try {
        service.heartbeatAwaiting("c2", 1, 1, -1, 60_000);
      } catch (Exception e) {
        answer.set(e);
      }
    });
    serverThread.start();
    // What the RPC server's stop does to its pool's threads.
    org.edl.testing.Await.until("the beat to be held", serverThread::getState,
        st -> st == Thread.State.TIMED_WAITING || st == Thread.State.WAITING);
    serverThread.interrupt();
    serverThread.join(10_000);
    assertTrue(org.edl.job.rpc.LeaderClient.isNotLeader(answer.get()),
        "a member retries elsewhere on this, and gives up on an internal error: " + answer.get());
  }

  @Test
  void aBeatThatAsksNotToBeHeldAnswersAtOnce() throws Exception {
    runningWithANewcomer();
    HeartbeatReply r = service.heartbeatAwaiting("c2", 1, 1, -1, 0);
    assertFalse(r.isSetSwitchOrder());
    assertFalse(r.isFenced());
  }
}
