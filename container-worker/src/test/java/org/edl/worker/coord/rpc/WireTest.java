package org.edl.worker.coord.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.edl.thrift.EdlError;
import org.edl.thrift.LeaderRecord;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.coord.CheckpointRef;
import org.edl.worker.coord.CoordTesting;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.JobOutput;
import org.edl.worker.coord.JobPosition;
import org.edl.worker.coord.JobRecord;
import org.edl.worker.coord.Member;
import org.edl.worker.coord.MemberRing;
import org.edl.worker.coord.Refused;
import org.edl.worker.coord.StepReport;
import org.edl.worker.coord.StopPlan;
import org.edl.worker.coord.SwitchPlan;
import org.junit.jupiter.api.Test;

/** The records as they cross the wire or go into ZooKeeper, and back. */
class WireTest {
  private static final JobSpec SPEC = CoordTesting.spec(3, 1, 4, 1000);
  private static final MemberRing RING = new MemberRing(4, List.of(new Member("c2", "10.0.0.2", 7002, 0),
      new Member("c3", "10.0.0.3", 7003), CoordTesting.member(5), new Member("c7", "localhost", 7007, 1,
          "localhost:45123")));
  private static final MemberRing NEXT = new MemberRing(5, List.of(new Member("c2", "10.0.0.2", 7002, 0),
      CoordTesting.member(5), CoordTesting.member(6)));

  private static JobRecord roundTrip(JobRecord r) {
    return Wire.jobRecord(Wire.bytes(r, SPEC));
  }

  @Test
  void aFullRecordComesBackEqualFromItsBytes() {
    JobRecord r = new JobRecord("c2", 7, RING, new JobPosition(120, 2, 1440, 4, 0.25),
        new CheckpointRef("hdfs:///ckpt/step-100", new JobPosition(100, 1, 1200, 3, 0.3)),
        new JobPosition(40, 0, 480, 0, 0.9), List.of("c1", "c4"),
        new SwitchPlan(125, NEXT, List.of("c6"), List.of("c3"), "c2", false, 0, 7),
        Map.of("c5", 2, "c2", 0), 2.5, true, new JobOutput("hdfs:///out/model", "hdfs:///out/metrics.json"),
        "hdfs:///stop/step-130", new StopPlan(130, "hdfs:///stop", 7),
        Map.of("c5", new SwitchPlan(118, RING, List.of("c5", "c7"), List.of("c1"), "c2", true, 0, 6, 0.6),
            "c7", new SwitchPlan(118, RING, List.of("c5", "c7"), List.of("c1"), "c2", true, 0, 6, 0.6)));
    assertEquals(r, roundTrip(r));
  }

  /** Two NodeManagers on one host (the embedded cluster's) stay two nodes through the wire. */
  @Test
  void aMembersNodeCrossesTheWireAndDefaultsToItsHost() {
    Member onNode = new Member("c8", "localhost", 7008, 2, "localhost:40001");
    assertEquals(onNode, Wire.member(Wire.workerInfo(onNode)));
    assertEquals("localhost:40001", Wire.workerInfo(onNode).getNode());
    Member plain = new Member("c9", "10.0.0.9", 7009);
    assertFalse(Wire.workerInfo(plain).isSetNode(), "a node equal to the host is not sent twice");
    assertEquals("10.0.0.9", Wire.member(Wire.workerInfo(plain)).node());
  }

  @Test
  void aSparseRecordComesBackEqualFromItsBytes() {
    JobRecord r = new JobRecord("c1", 1, RING, new JobPosition(3, 0, 36, 0, Double.NaN), null, JobPosition.START,
        List.of(), null, Map.of(), Double.NaN, false, null, null, null, Map.of());
    assertEquals(r, roundTrip(r));
    JobRecord waiting = new JobRecord("c1", 2, RING, new JobPosition(3, 0, 36, 0, 1.5), null, JobPosition.START,
        List.of(), new SwitchPlan(-1, NEXT, List.of("c6"), List.of("c3"), null, false, 2, 2), Map.of(), 1.5,
        false, null, null, null, Map.of());
    assertEquals(waiting, roundTrip(waiting), "an unscheduled replacement waiting for two newcomers");
  }

  /** What a leader publishes comes back as it was: the successor starts from exactly that. */
  @Test
  void theRecordOfARunningLeaderComesBackEqual() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    CoordinatorState s = CoordTesting.leading(SPEC, now::get, Duration.ofMillis(50), "c1");
    for (int i = 1; i <= 3; i++) {
      s.register(CoordTesting.member(i));
    }
    s.presence(Set.of("c1", "c2", "c3"));
    for (long step = 0; step < 3; step++) {
      for (String id : List.of("c1", "c2", "c3")) {
        s.sync(StepReport.of(id, step, 1.0 + step, 0.01, 4).batchStart(step * 12).epochSize(64)
            .computeSeconds(0.01).leaderEpoch(1).build());
      }
    }
    s.checkpointWritten(new CheckpointRef("ckpt-2", new JobPosition(2, 0, 24, 2, 2.0)));
    s.register(CoordTesting.member(4));
    s.leave("c1");
    JobRecord r = s.record();
    assertTrue(r.pending() != null && !r.pending().scheduled());
    assertEquals(r, roundTrip(r));
  }

  @Test
  void aSwitchPlanAndItsOrderConvertBothWays() {
    SwitchPlan scheduled = new SwitchPlan(125, NEXT, List.of("c6"), List.of("c3"), "c2", true, 0, 7);
    SwitchOrder o = Wire.switchOrder(scheduled);
    assertEquals(5, o.getTopologyVersion());
    assertEquals(125, o.getAtStep());
    assertEquals(List.of("c2", "c5", "c6"), Wire.ring(o.getTopology()).ids());
    assertTrue(o.isLeaderLeaves());
    assertEquals(7, o.getLeaderEpoch());
    assertFalse(o.isSetAwaitedJoiners());
    assertEquals(scheduled, Wire.switchPlan(o));
    assertEquals(o, Wire.switchOrder(Wire.switchPlan(o)));

    SwitchPlan waiting = new SwitchPlan(-1, NEXT, List.of(), List.of("c3"), null, false, 1, 7);
    SwitchOrder w = Wire.switchOrder(waiting);
    assertFalse(w.isSetBroadcasterId());
    assertEquals(1, w.getAwaitedJoiners());
    assertEquals(waiting, Wire.switchPlan(w));
  }

  @Test
  void membersAndRingsConvertBothWays() {
    for (Member m : NEXT.members()) {
      assertEquals(m, Wire.member(Wire.workerInfo(m)));
    }
    assertFalse(Wire.workerInfo(CoordTesting.member(5)).isSetGpuIndex(), "no GPU: not set");
    assertEquals(RING, Wire.ring(Wire.topology(RING)));
    assertTrue(Wire.contains(Wire.topology(RING), "c3"));
    assertFalse(Wire.contains(Wire.topology(RING), "c6"));
  }

  @Test
  void aRefusalBecomesAnErrorNamingTheField() {
    EdlError e = Wire.error(Refused.invalid("dataPort", "0", "not a TCP port"));
    assertEquals("dataPort", e.getField());
    assertEquals("0", e.getValue());
    assertTrue(e.getMessage().contains("not a TCP port"), e.getMessage());
    LeaderRecord l = Wire.leaderRecord(new JobRecord("c1", 3, RING, JobPosition.START, null, JobPosition.START,
        List.of(), null, Map.of(), Double.NaN, false, null, null, null, Map.of()), SPEC);
    assertEquals(3, l.getLeaderEpoch());
    assertFalse(l.isSetCheckpoint());
    assertFalse(l.isSetJoinOrders(), "no newcomer waits for an order: nothing written");
  }
}
