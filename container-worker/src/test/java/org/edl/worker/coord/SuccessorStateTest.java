package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSpec;
import org.edl.worker.coord.rpc.Wire;
import org.junit.jupiter.api.Test;

/**
 * Where a successor leader starts: always from the newest record a leadership published, never
 * from anything handed to it. A graceful departure's record goes on without a recovery; a dead
 * leader's record is recovered from (its newest checkpoint, its fenced, its straggler counts).
 */
class SuccessorStateTest {
  private static final Duration T_A = Duration.ofMillis(20);
  private final AtomicLong now = new AtomicLong(5_000_000_000L);
  private final JobSpec spec = CoordTesting.spec(3, 1, 3, 1000).toBuilder().stragglers(1.2, 3, false).build();
  private final JobSpec spec4 = CoordTesting.spec(4, 1, 4, 1000);

  private CoordinatorState running() throws Refused {
    return running(spec);
  }

  private CoordinatorState running(JobSpec job) throws Refused {
    CoordinatorState s = CoordTesting.leading(job, now::get, T_A, "c1");
    Set<String> all = new java.util.HashSet<>();
    for (int i = 1; i <= job.scale().workers(); i++) {
      s.register(CoordTesting.member(i));
      all.add("c" + i);
    }
    s.presence(all);
    return s;
  }

  private CoordinatorState successor(JobSpec job, String id, long epoch, JobRecord record, Set<String> present) {
    return CoordTesting.successor(job, now::get, T_A, id, epoch, record, present);
  }

  /** Every member of the ring reports {@code step}: 10 ms of compute, c3 30 ms when {@code slow}. */
  private void step(CoordinatorState s, long step, boolean slow) throws Refused {
    List<String> ids = s.ring().ids();
    for (String id : ids) {
      s.sync(StepReport.of(id, step, 1.0, slow ? 0.030 : 0.010, 12 / ids.size()).batchStart(step * 12)
          .computeSeconds(slow && id.equals("c3") ? 0.030 : 0.010).build());
    }
    now.addAndGet(10_000_000L);
  }

  /** The leader leaves at a switch in the middle of c3's slow run: its successor goes on counting. */
  @Test
  void aSuccessorGoesOnCountingSlowBatchesWhereTheLeaderLeftOff() throws Exception {
    CoordinatorState leader = running();
    step(leader, 0, true);
    step(leader, 1, true);
    SwitchPlan leaving = leader.leave("c1");
    assertEquals(2, leaving.atStep(), "k = ceil(20 ms / 30 ms) = 1");
    step(leader, 2, true);
    assertTrue(leader.handedOver());
    assertEquals(List.of(), leader.events());
    JobRecord record = leader.record();
    assertEquals(2, record.stragglerRuns().get("c3"), "two slow steps counted before the switch step");

    CoordinatorState successor = successor(spec, "c2", 2, record, Set.of("c2", "c3"));
    step(successor, 3, true);
    assertEquals(1, successor.events().size(), "the third slow batch in a row names c3: " + successor.events());
    assertTrue(successor.events().get(0).contains("removing straggler c3"), successor.events().toString());
    assertEquals(List.of("c3"), successor.scheduled().orElseThrow().leavers());
  }

  /**
   * The leader dies (its record does not say it departed): the successor declares it failed and
   * recovers from the newest checkpoint the record names; those fenced earlier stay fenced.
   */
  @Test
  void aDeadLeadersRecordIsRecoveredFromWithItsNewestCheckpointAndItsFenced() throws Exception {
    CoordinatorState leader = running(spec4);
    step(leader, 0, false);
    leader.presence(Set.of("c1", "c2", "c3"));
    leader.requestRecovery("c1", 0, 12);
    leader.requestRecovery("c2", 0, 12);
    leader.requestRecovery("c3", 0, 12).orElseThrow();
    assertEquals(List.of("c1", "c2", "c3"), leader.ring().ids());
    for (long i = 0; i < 4; i++) {
      step(leader, i, false);
    }
    leader.checkpointWritten(new CheckpointRef("ckpt-3", new JobPosition(3, 0, 36, 0, Double.NaN)));
    JobRecord record = leader.record();
    assertFalse(record.departed());
    assertEquals(List.of("c4"), record.fenced());
    assertTrue(Succession.mayLead(record, "c2"));
    assertFalse(Succession.mayLead(record, "c4"), "declared failed");
    assertFalse(Succession.mayLead(record, "c9"), "not in the recorded ring");

    CoordinatorState successor = successor(spec4, "c2", 2, record, Set.of("c2", "c3"));
    assertEquals(Phase.RECOVERING, successor.phase());
    assertEquals(Set.of("c1", "c4"), successor.fenced().keySet());
    assertEquals(Refused.Kind.FENCED, assertThrows(Refused.class,
        () -> successor.register(CoordTesting.member(4))).kind(), "fenced under the earlier leader too");
    assertEquals(java.util.Optional.empty(), successor.requestRecovery("c3", 3, 48));
    RecoveryPlan o = successor.requestRecovery("c2", 3, 48).orElseThrow();
    assertEquals(List.of("c1"), o.failed(), "the old leader, gone without leaving, failed");
    assertEquals("ckpt-3", o.checkpoint());
    assertEquals(3, o.nextStep());
    assertEquals(36, o.batchStart());
    assertEquals(List.of("c2", "c3"), o.ring().ids());
    assertEquals(3, o.version());
    assertEquals(2, o.leaderEpoch());
  }

  /**
   * The record does not say the leader departed, but its ZooKeeper session lives (it was deposed
   * by a connection blip): nobody is declared failed, every member recovers to one position and
   * the old leader trains on as a member.
   */
  @Test
  void aDeposedLeaderThatLivesIsRecoveredWithNobodyFailed() throws Exception {
    CoordinatorState leader = running();
    for (long i = 0; i < 4; i++) {
      step(leader, i, false);
    }
    leader.checkpointWritten(new CheckpointRef("ckpt-3", new JobPosition(3, 0, 36, 0, Double.NaN)));
    CoordinatorState successor = successor(spec, "c2", 2, leader.record(), Set.of("c1", "c2", "c3"));
    assertEquals(Phase.RECOVERING, successor.phase());
    assertTrue(successor.fenced().isEmpty());
    successor.requestRecovery("c1", 3, 48);
    successor.requestRecovery("c3", 3, 48);
    RecoveryPlan o = successor.requestRecovery("c2", 3, 48).orElseThrow();
    assertEquals(List.of(), o.failed());
    assertEquals(List.of("c1", "c2", "c3"), o.ring().ids());
    assertEquals("ckpt-3", o.checkpoint());
    assertEquals(3, o.nextStep());
  }

  /**
   * The leader leaves at a switch; the successor takes over from the record the leaving leader
   * published after its switch, and the job goes on from there without a recovery. The record
   * of the change before the leave (its leader still in the ring, not departed) would have been
   * taken for a death.
   */
  @Test
  void aGracefulDeparturesRecordIsGoneOnFromWithoutARecovery() throws Exception {
    CoordinatorState leader = running();
    for (long i = 0; i < 4; i++) {
      step(leader, i, false);
    }
    JobRecord before = leader.record();
    SwitchPlan order = leader.leave("c1");
    assertTrue(order.leaderLeaves());
    for (long i = 4; i <= order.atStep(); i++) {
      step(leader, i, false);
    }
    assertTrue(leader.handedOver());
    JobRecord departure = leader.record();
    assertTrue(departure.departed());
    assertEquals(order.atStep() + 1, departure.position().step());
    assertEquals(List.of("c2", "c3"), departure.ring().ids());

    CoordinatorState successor = successor(spec, "c2", 2, departure, Set.of("c2", "c3"));
    successor.presence(Set.of("c2", "c3"));
    assertFalse(successor.recoveryPending(), "a graceful departure is no failure");
    assertEquals(Phase.RUNNING, successor.phase());
    assertEquals(Map.of(), successor.fenced());
    long next = order.atStep() + 1;
    for (String id : List.of("c2", "c3")) {
      assertFalse(successor.sync(CoordTesting.report(id, next, 1.0, 0.010, 6, next * 12)).recover());
    }
    assertEquals(next + 1, successor.position().step(), "the two survivors completed the next step");

    // What the successor would have done from the record of the last change before the leave.
    CoordinatorState stale = successor(spec, "c2", 2, before, Set.of("c2", "c3"));
    assertTrue(stale.recoveryPending(), "the leader named in its own ring went without a hand-over: recovery");
  }

  /**
   * The AM's leaves arrive one at a time: the leader's own is scheduled first, the next waits
   * for the switch after it. The successor finds that unscheduled change in the record and
   * schedules it at once; otherwise it would wait for another call, the leavers would train on,
   * and the AM's grace would end in kills that the successor recovers from.
   */
  @Test
  void aSuccessorSchedulesTheLeaveThatWaitedBehindTheLeadersOwn() throws Exception {
    CoordinatorState leader = running();
    step(leader, 0, false);
    SwitchPlan first = leader.leave("c1");
    leader.leave("c3");
    for (long i = 1; i <= first.atStep(); i++) {
      step(leader, i, false);
    }
    assertTrue(leader.handedOver());
    JobRecord record = leader.record();
    assertFalse(record.pending().scheduled());
    CoordinatorState successor = successor(spec, "c2", 2, record, Set.of("c2", "c3"));
    SwitchPlan order = successor.scheduled().orElseThrow(() -> new AssertionError("the waiting leave was not scheduled"));
    assertEquals(Phase.CHANGING, successor.phase());
    assertEquals(List.of("c3"), order.leavers());
    assertTrue(order.atStep() > first.atStep());
    assertEquals(2, order.leaderEpoch());
  }

  /**
   * A migration that moves the leader, with the newcomer's order not taken before the hand-over
   * (it said ready, the switch was scheduled, and the leader completed the switch step before the
   * newcomer asked): the successor, from the record as ZooKeeper holds it, hands the newcomer the
   * order it was admitted by, with the same step and broadcaster, under the successor's epoch.
   * Before, the successor knew no order for a member of the ring it inherited and refused its
   * ready call.
   */
  @Test
  void aNewcomerWhoseOrderWasNotTakenBeforeTheHandOverGetsItFromTheSuccessor() throws Exception {
    CoordinatorState leader = running();
    step(leader, 0, false);
    leader.replace(List.of("c1"), 1);
    leader.register(CoordTesting.member(4));
    SwitchPlan admitted = leader.ready("c4").orElseThrow();
    assertTrue(admitted.leaderLeaves());
    for (long i = 1; i <= admitted.atStep(); i++) {
      step(leader, i, false);
    }
    assertTrue(leader.handedOver());
    JobRecord record = Wire.jobRecord(Wire.bytes(leader.record(), spec));
    assertEquals(List.of("c2", "c3", "c4"), record.ring().ids());

    CoordinatorState successor = successor(spec, "c2", 2, record, Set.of("c2", "c3", "c4"));
    assertEquals(Phase.RUNNING, successor.phase());
    SwitchPlan handed = successor.ready("c4").orElseThrow(() -> new AssertionError("no order for the newcomer"));
    assertEquals(admitted.version(), handed.version());
    assertEquals(admitted.atStep(), handed.atStep());
    assertEquals("c2", handed.broadcasterId(), "the model comes from the survivor that sent it");
    assertEquals(List.of("c4"), handed.joiners());
    assertEquals(record.ring().ids(), handed.next().ids());
    assertEquals(2, handed.leaderEpoch(), "the successor answers under its own epoch");
    step(successor, admitted.atStep() + 1, false);
    assertEquals(admitted.atStep() + 2, successor.position().step(), "the newcomer trains in the successor's ring");
    assertTrue(successor.orderFor("c4").isEmpty(), "its first report: it no longer needs the order");
  }

  /** A departed record that holds a scheduled switch: the successor is CHANGING and applies it at its step. */
  @Test
  void aScheduledSwitchInADepartedRecordIsAppliedByTheSuccessor() throws Exception {
    MemberRing ring = new MemberRing(2, List.of(CoordTesting.member(2), CoordTesting.member(3)));
    MemberRing next = new MemberRing(3, List.of(CoordTesting.member(2), CoordTesting.member(3), CoordTesting.member(4)));
    SwitchPlan pending = new SwitchPlan(12, next, List.of("c4"), List.of(), "c2", false, 0, 1);
    JobRecord record = new JobRecord("c1", 1, ring, new JobPosition(10, 0, 120, 0, 0.5), null, JobPosition.START,
        List.of(), pending, Map.of(), 0.9, true, null, null, null, Map.of());
    CoordinatorState successor = successor(spec4, "c2", 2, record, Set.of("c2", "c3", "c4"));
    assertEquals(Phase.CHANGING, successor.phase());
    assertEquals(12, successor.scheduled().orElseThrow().atStep());
    assertEquals(12, successor.orderFor("c4").orElseThrow().atStep(), "the newcomer still learns its order");
    for (long i = 10; i <= 12; i++) {
      step(successor, i, false);
    }
    assertEquals(next.ids(), successor.ring().ids());
    assertEquals(3, successor.ring().version());
    assertEquals(Phase.RUNNING, successor.phase());
    assertEquals(0.9, successor.firstLoss().orElseThrow(), "the job's first loss is the record's");
  }

  /**
   * The leader dies after the job's first step and before anything else changed its record (no
   * checkpoint written yet, no change): the record it published carries the first loss all the
   * same, and the successor keeps it through its recovery, so metrics.json says the job's first
   * loss rather than NaN or the loss of the successor's own first step. Before, the record
   * published at the first ring's formation was the last, without a first loss.
   */
  @Test
  void theRecordCarriesTheFirstLossFromTheFirstStep() throws Exception {
    Publisher zk = new Publisher();
    CoordinatorState leader = CoordinatorState.forming(spec, now::get,
        CoordinatorSettings.DEFAULT.withSwitchAllowance(T_A), "c1", zk.store.claimEpoch(), new Lifecycle("c1"),
        java.util.Optional.empty());
    for (int i = 1; i <= 3; i++) {
      leader.register(CoordTesting.member(i));
    }
    zk.publish(leader);
    step(leader, 0, false);
    zk.publish(leader);
    assertEquals(1.0, leader.firstLoss().orElseThrow());
    JobRecord record = zk.store.read().orElseThrow();
    assertEquals(1.0, record.firstLoss(), "published with the step that gave it");

    CoordinatorState successor = successor(spec, "c2", zk.store.claimEpoch(), record, Set.of("c2", "c3"));
    assertEquals(Phase.RECOVERING, successor.phase());
    successor.requestRecovery("c3", 0, 12);
    RecoveryPlan o = successor.requestRecovery("c2", 0, 12).orElseThrow();
    for (String id : o.ring().ids()) {
      successor.sync(CoordTesting.report(id, o.nextStep(), 0.5, 0.010, 6, o.batchStart()));
    }
    assertEquals(o.nextStep() + 1, successor.position().step());
    assertEquals(1.0, successor.firstLoss().orElseThrow(), "the job's first loss, not the successor's first step's");
  }

  /** A record that names the output: the job is over, the successor only tells members so. */
  @Test
  void aFinishedJobsRecordGivesAFinishedSuccessor() throws Exception {
    JobSpec short4 = CoordTesting.spec(3, 1, 3, 4);
    CoordinatorState leader = running(short4);
    for (long i = 0; i < 4; i++) {
      step(leader, i, false);
    }
    assertEquals(Phase.FINISHING, leader.phase());
    JobOutput out = new JobOutput("/out/model", "/out/metrics.json");
    leader.finished(out);
    CoordinatorState successor = successor(short4, "c2", 2, leader.record(), Set.of("c2", "c3"));
    assertEquals(Phase.FINISHED, successor.phase());
    assertEquals(out, successor.output().orElseThrow());
    FinishAnswer a = successor.finishStatus("c3");
    assertTrue(a.done());
    assertEquals(out, a.output());
    assertTrue(successor.register(CoordTesting.member("c9", 7009)).retryAfterMs() > 0);
  }

  /**
   * The defect the rewrite fixes: leader c1 leaves at a switch near step 100 and c2 takes over
   * (from c1's departed record); c2 trains to step 500, a checkpoint at step 400, and dies. The
   * worker elected next was handed nothing: it starts from the NEWEST record (c2's, with the
   * checkpoint at 400), never from c1's departed record or from step 0.
   */
  @Test
  void aWorkerHandedNothingStartsFromTheNewestRecordNotAnOlderOne() throws Exception {
    Publisher zk = new Publisher();
    long epochA = zk.store.claimEpoch();
    CoordinatorState a = CoordinatorState.forming(spec4, now::get,
        CoordinatorSettings.DEFAULT.withSwitchAllowance(T_A), "c1", epochA, new Lifecycle("c1"),
        java.util.Optional.empty());
    for (int i = 1; i <= 4; i++) {
      a.register(CoordTesting.member(i));
    }
    a.presence(Set.of("c1", "c2", "c3", "c4"));
    zk.publish(a);
    for (long i = 0; i < 98; i++) {
      step(a, i, false);
      zk.publish(a);
    }
    SwitchPlan leaving = a.leave("c1");
    zk.publish(a);
    for (long i = 98; i <= leaving.atStep(); i++) {
      step(a, i, false);
      zk.publish(a);
    }
    assertTrue(a.handedOver());
    JobRecord departed = zk.store.read().orElseThrow();
    assertTrue(departed.departed());
    assertEquals(leaving.atStep() + 1, departed.position().step());

    long epochB = zk.store.claimEpoch();
    CoordinatorState b = successor(spec4, "c2", epochB, zk.store.read().orElseThrow(), Set.of("c2", "c3", "c4"));
    assertEquals(Phase.RUNNING, b.phase());
    zk.publish(b);
    for (long i = leaving.atStep() + 1; i < 500; i++) {
      step(b, i, false);
      if (b.position().step() == 400) {
        b.checkpointWritten(new CheckpointRef("hdfs:///ckpt/step-400", b.position()));
      }
      zk.publish(b);
    }
    assertEquals(500, b.position().step());
    // The old leader's late write under its own epoch is refused: only the newest leadership writes.
    zk.publishAnyway(a);
    assertEquals(List.of("c1"), zk.superseded);

    // c2 dies; c3 is elected and reads what ZooKeeper holds.
    JobRecord newest = zk.store.read().orElseThrow();
    assertEquals("c2", newest.leaderId());
    assertEquals(epochB, newest.leaderEpoch());
    assertFalse(newest.departed());
    assertEquals(400, newest.checkpoint().at().step());
    long epochC = zk.store.claimEpoch();
    CoordinatorState c = successor(spec4, "c3", epochC, newest, Set.of("c3", "c4"));
    assertEquals(Phase.RECOVERING, c.phase());
    assertEquals(java.util.Optional.empty(), c.requestRecovery("c4", 499, 500 * 12));
    RecoveryPlan o = c.requestRecovery("c3", 499, 500 * 12).orElseThrow();
    assertEquals(RecoveryPlan.Mode.CONSISTENT, o.mode());
    assertEquals(List.of("c2"), o.failed());
    assertEquals("hdfs:///ckpt/step-400", o.checkpoint());
    assertEquals(400, o.nextStep());
    assertNotEquals(0, o.nextStep(), "never back to the start");
    assertEquals(400 * 12, o.batchStart());
    assertEquals(List.of("c3", "c4"), o.ring().ids());
    assertEquals(400, c.position().step());
    assertNull(c.record().pending());
  }

  /** Publishes a leader's record whenever it changed, as {@link Leadership} does. */
  private static final class Publisher {
    final LeaderStore store = LeaderStore.unpersisted();
    final List<String> superseded = new ArrayList<>();
    private final Map<CoordinatorState, Long> published = new IdentityHashMap<>();

    void publish(CoordinatorState s) {
      Long last = published.get(s);
      if (s.ring().version() > 0 && (last == null || last != s.recordVersion())) {
        publishAnyway(s);
      }
    }

    void publishAnyway(CoordinatorState s) {
      published.put(s, s.recordVersion());
      JobRecord r = s.record();
      store.publish(r, why -> superseded.add(r.leaderId()));
    }
  }
}
