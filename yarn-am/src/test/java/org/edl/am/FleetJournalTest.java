package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

class FleetJournalTest {
  @Test
  void anIntentSurvivesItsTextAndEqualIntentsGiveEqualText() {
    Map<String, WorkerFleet.Departure> departing = new LinkedHashMap<>();
    departing.put("container_1_0001_01_000002", WorkerFleet.Departure.MIGRATION);
    departing.put("container_1_0001_01_000003", WorkerFleet.Departure.SCALE_IN);
    FleetIntent full = new FleetIntent(4, departing, 2, new StopResume(3, 2, "hdfs://nn:8020/out/checkpoints/restart-2"),
        new FleetIntent.MigrationIntent("h1", "h3", List.of("container_1_0001_01_000002"),
            List.of("container_1_0001_01_000007")));
    assertEquals(full, FleetIntent.decode(full.encode()));
    assertEquals(full.encode(), FleetIntent.decode(full.encode()).encode());
    FleetIntent plain = new FleetIntent(2, Map.of(), 0, null, null);
    assertEquals(plain, FleetIntent.decode(plain.encode()));
    assertThrows(IllegalArgumentException.class, () -> FleetIntent.decode("departing=c1:ELSEWHERE\ntarget=2\n"));
    assertThrows(IllegalArgumentException.class, () -> FleetIntent.decode("nothing"));
  }

  @Test
  void theZooKeeperJournalKeepsTheLastIntentUnderTheJobAndGoesWithIt() throws Exception {
    try (TestingServer server = new TestingServer();
        CuratorFramework zk = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100))) {
      zk.start();
      FleetJournal journal = FleetJournal.zooKeeper(zk, "application_1_0001");
      assertEquals(Optional.empty(), journal.last());
      journal.record(new FleetIntent(3, Map.of("c3", WorkerFleet.Departure.SCALE_IN), 0, null, null));
      FleetIntent second = new FleetIntent(2, Map.of(), 0, null, null);
      journal.record(second);
      assertEquals(Optional.of(second), journal.last());
      assertTrue(zk.checkExists().forPath("/edl/application_1_0001/fleet") != null);

      JobCleanup.zooKeeper(zk, "application_1_0001");
      assertEquals(Optional.empty(), FleetJournal.zooKeeper(zk, "application_1_0001").last());
    }
  }
}
