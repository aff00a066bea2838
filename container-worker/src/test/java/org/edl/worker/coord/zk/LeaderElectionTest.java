package org.edl.worker.coord.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.edl.testing.ZooKeeperServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LeaderElectionTest {
  private static final String APP = "application_1_0001";
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** A fresh server for each test: one of them stops and restarts it. */
  @RegisterExtension
  final ZooKeeperServer zk = new ZooKeeperServer();
  private final List<CuratorFramework> clients = new ArrayList<>();
  private final List<LeaderElection> elections = new ArrayList<>();
  private final ExecutorService listenerExecutor = Executors.newSingleThreadExecutor();
  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

  @AfterEach
  void stop() throws Exception {
    for (LeaderElection e : elections) {
      e.close();
    }
    for (CuratorFramework c : clients) {
      c.close();
    }
    listenerExecutor.shutdownNow();
  }

  @Test
  void oneLeaderAmongThreeOthersFindItAndASuccessorTakesOver() throws Exception {
    for (int i = 0; i < 3; i++) {
      candidate("host" + i + ":900" + i).start();
    }
    String first = events.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertNotNull(first, "nobody was elected");
    assertTrue(first.startsWith("leader "), first);
    String leaderAddress = first.substring("leader ".length());
    assertNull(events.poll(200, TimeUnit.MILLISECONDS), "a second leadership event: " + events);

    long leaders = elections.stream().filter(LeaderElection::hasLeadership).count();
    assertEquals(1, leaders);
    for (LeaderElection e : elections) {
      assertEquals(leaderAddress, e.currentLeaderAddress(WAIT));
    }

    LeaderElection old = elections.stream().filter(LeaderElection::hasLeadership).findFirst().orElseThrow();
    old.close();
    assertEquals("not-leader " + leaderAddress, events.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
    String next = events.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertNotNull(next, "no successor elected");
    String successor = next.substring("leader ".length());
    assertNotEquals(leaderAddress, successor);
    for (LeaderElection e : elections) {
      if (e != old) {
        assertEquals(successor, e.currentLeaderAddress(WAIT));
      }
    }
    assertEquals(LeaderElection.State.CLOSED, old.state());
    assertFalse(old.hasLeadership());
  }

  @Test
  void lostZooKeeperGivesLeadershipUp() throws Exception {
    LeaderElection only = candidate("host0:9000");
    only.start();
    assertEquals("leader host0:9000", events.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
    zk.server().stop();
    assertEquals("not-leader host0:9000", events.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertFalse(only.hasLeadership());
    zk.server().restart();
    assertEquals("leader host0:9000", events.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
  }

  @Test
  void startsOnceAndLookUpTimesOutWithoutCandidates() throws Exception {
    LeaderElection e = candidate("host0:9000");
    assertThrows(TimeoutException.class, () -> e.currentLeaderAddress(Duration.ofMillis(300)));
    e.start();
    assertThrows(IllegalStateException.class, e::start);
    e.close();
    assertThrows(IllegalStateException.class, e::start);
  }

  @Test
  void aFinderAnswersFromMemoryWhileItsServerIsGoneAndFollowsASuccessorAfterwards() throws Exception {
    LeaderElection first = candidate("host0:9000");
    first.start();
    assertEquals("leader host0:9000", events.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
    CuratorFramework member = CuratorFrameworkFactory.builder().connectString(zk.connectString())
        .sessionTimeoutMs(10_000).connectionTimeoutMs(2_000).retryPolicy(new RetryOneTime(100)).build();
    member.start();
    clients.add(member);
    LeaderFinder finder = new LeaderFinder(member, APP);
    assertEquals("host0:9000", finder.leaderAddress(WAIT));

    // A cut server answers nothing: the member keeps heart-beating to the leader it knows.
    zk.server().stop();
    assertEquals("host0:9000", finder.leaderAddress(Duration.ofMillis(200)));
    zk.server().restart();

    candidate("host1:9001").start();
    first.close();
    assertEquals("not-leader host0:9000", events.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertEquals("leader host1:9001", events.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
    String followed = org.edl.testing.Await.until("the finder to follow the successor",
        () -> finder.leaderAddress(WAIT), "host1:9001"::equals, WAIT);
    assertEquals("host1:9001", followed);
  }

  private LeaderElection candidate(String address) {
    CuratorFramework client = CuratorFrameworkFactory.builder()
        .connectString(zk.connectString())
        .sessionTimeoutMs(10_000)
        .connectionTimeoutMs(2_000)
        .retryPolicy(new RetryOneTime(100))
        .build();
    client.start();
    clients.add(client);
    LeaderElection e = new LeaderElection(client, APP, address, listenerExecutor);
    e.addListener(new LeaderElection.Listener() {
      @Override
      public void isLeader() {
        events.add("leader " + address);
      }

      @Override
      public void notLeader() {
        events.add("not-leader " + address);
      }
    });
    elections.add(e);
    return e;
  }
}
