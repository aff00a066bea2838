package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.edl.am.FleetChange.Migration;
import org.edl.am.FleetChange.Replacement;
import org.edl.am.FleetChange.Restart;
import org.edl.am.FleetChange.ScaleIn;
import org.edl.am.FleetChange.ScaleOut;
import org.edl.am.FleetChange.Shown;
import org.edl.testing.ZooKeeperServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FleetJournalTest {
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @Test
  void anIntentSurvivesItsTextAndEqualIntentsGiveEqualText() {
    List<FleetIntent> changes = List.of(
        new FleetIntent(4, 2, new Migration("h1", "h3", List.of("container_1_0001_01_000002"), true, 1,
            List.of("container_1_0001_01_000007"), Shown.NOTHING)),
        new FleetIntent(3, 2, new Restart(new StopResume(3, 2, "hdfs://nn:8020/out/checkpoints/restart-2"),
            List.of("container_1_0001_01_000002", "container_1_0001_01_000003"), Shown.NOTHING)),
        new FleetIntent(2, 3, new Restart(new StopResume(2, 2, "hdfs://nn:8020/out/checkpoints/restart-3",
            "the resource manager will preempt all 2 workers"), List.of("container_1_0001_01_000004"), Shown.NOTHING)),
        new FleetIntent(2, 0, new ScaleIn(List.of("container_1_0001_01_000003"), Shown.NOTHING)),
        new FleetIntent(4, 1, new ScaleOut(2, Shown.NOTHING)),
        new FleetIntent(4, 1, new Replacement(Shown.NOTHING)),
        new FleetIntent(3, 0, new Replacement(Shown.NOTHING), List.of(
            new WorkerFailures.Failure("container_1_0001_01_000004", "h2", "exit status 137 (killed)"),
            new WorkerFailures.Failure("container_1_0001_01_000005", "h1", "could not be started: x|y"))),
        new FleetIntent(3, 0, null, List.of(), 1_796_000_000_000L));
    for (FleetIntent full : changes) {
      assertEquals(full, FleetIntent.decode(full.encode()));
      assertEquals(full.encode(), FleetIntent.decode(full.encode()).encode());
    }
    FleetIntent plain = new FleetIntent(2, 0, null);
    assertEquals(plain, FleetIntent.decode(plain.encode()));
    // What the leader's reports showed is not kept: a new attempt waits for the leader's next ones.
    assertEquals(new FleetIntent(3, 0, new ScaleOut(1, Shown.NOTHING)),
        new FleetIntent(3, 0, new ScaleOut(1, Shown.since(LeaderReport.ofSize(2)))));
    assertThrows(IllegalArgumentException.class, () -> FleetIntent.decode("departing=c1:ELSEWHERE\ntarget=2\n"));
    assertThrows(IllegalArgumentException.class, () -> FleetIntent.decode("change=ELSEWHERE\ntarget=2\n"));
    assertThrows(IllegalArgumentException.class, () -> FleetIntent.decode("nothing"));
  }

  @Test
  void theZooKeeperJournalKeepsTheLastIntentUnderTheJobAndGoesWithIt() throws Exception {
    try (CuratorFramework zk = ZK.newClient()) {
      FleetJournal journal = FleetJournal.zooKeeper(zk, "application_1_0001");
      assertEquals(Optional.empty(), journal.last());
      journal.record(new FleetIntent(3, 0, new ScaleIn(List.of("c3"), Shown.NOTHING)));
      FleetIntent second = new FleetIntent(2, 0, null);
      journal.record(second);
      assertEquals(Optional.of(second), journal.last());
      assertTrue(zk.checkExists().forPath("/edl/application_1_0001/fleet") != null);

      JobCleanup.zooKeeper(zk, "application_1_0001");
      assertEquals(Optional.empty(), FleetJournal.zooKeeper(zk, "application_1_0001").last());
    }
  }
}
