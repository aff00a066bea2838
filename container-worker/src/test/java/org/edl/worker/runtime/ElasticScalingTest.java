package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.edl.job.JobSpec;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.thrift.SwitchOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scaling a running job, with workers as threads over real ZooKeeper and TCP: newcomers join
 * while the others train, leavers go at a scheduled step, a leaving leader hands over, and a
 * migration is one switch. After every change all workers hold identical parameters.
 */
class ElasticScalingTest {
  private static final String DATA = "synthetic:samples=600,features=12,classes=4,seed=11";
  private static final int STEPS = 200;
  private static final AtomicInteger APPS = new AtomicInteger();
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  private ElasticJob job(int workers, int maxWorkers, BatchRule rule, int batch, Duration allowance) {
    String appId = "application_7_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().name("elastic").model("softmax").data(DATA).format("auto")
        .workers(workers).minWorkers(1).maxWorkers(maxWorkers).gpusPerWorker(0).workerMemoryMb(512)
        .workerVcores(1).steps(STEPS).batchSize(batch).batchRule(rule).learningRate(0.3).hidden(16).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).build();
    return new ElasticJob(ZK.connectString(), appId, spec, allowance);
  }

  /**
   * Start at the minimum: a job asked for 4 workers (min 2) whose other two containers come late
   * starts training with the first two once the gathering window has passed, and the late ones join
   * stop-free; every sample position is trained once and all four end identical.
   */
  @Test
  void aJobStartsWithItsMinimumAfterTheGatheringWindowAndTheLateOnesJoin() throws Exception {
    String appId = "application_7_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().name("elastic").model("softmax").data(DATA).format("auto")
        .workers(4).minWorkers(2).maxWorkers(4).gatherMs(200).gpusPerWorker(0).workerMemoryMb(512)
        .workerVcores(1).steps(STEPS).batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.3).hidden(16)
        .seed(3).backend("cpu").output(out.resolve(appId).toUri().toString()).build();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5))) {
      String a = ElasticJob.id(appId, 1);
      String b = ElasticJob.id(appId, 2);
      String c = ElasticJob.id(appId, 3);
      String d = ElasticJob.id(appId, 4);
      job.holdBefore(20);
      job.start(a);
      job.start(b);
      job.awaitTrained(a, 5);
      job.awaitTrained(b, 5);

      job.start(c);
      job.start(d);
      job.awaitReady(c);
      job.awaitReady(d);
      job.release();

      List<Worker.Outcome> all = List.of(job.outcome(a), job.outcome(b), job.outcome(c), job.outcome(d));
      for (Worker.Outcome o : all) {
        assertEquals(Worker.Ending.FINISHED, o.ending(), o.workerId());
        assertEquals(STEPS, o.nextStep(), o.workerId());
        assertEquals(4, o.workers(), o.workerId());
      }
      assertEquals(0, job.outcome(a).firstStep(), "the first two began at step 0");
      assertTrue(job.outcome(c).firstStep() > 5 && job.outcome(d).firstStep() > 5,
          "the late ones joined a job already training");
      assertEquals(2, job.switches.get(a).get(0).workersBefore(), "the first ring had the two that came first");
      assertIdentical(all);
      assertEveryPositionOnce(job, STEPS * 24L);
    }
  }

  @Test
  void aNewcomerJoinsWhileTheOthersTrainAndTheyStopOnlyForTheSwitch() throws Exception {
    try (ElasticJob job = job(2, 3, BatchRule.FIXED_GLOBAL, 24, Duration.ofMillis(5))) {
      String a = ElasticJob.id(job.appId, 1);
      String b = ElasticJob.id(job.appId, 2);
      String c = ElasticJob.id(job.appId, 3);
      job.holdBefore(10);
      job.start(a);
      job.start(b);
      job.awaitTrained(a, 9);

      // The newcomer's preparation overlaps training: it lets the others run on and waits
      // until they have completed three more steps before it finishes preparing.
      AtomicLong prepStartedAt = new AtomicLong();
      AtomicLong trainedDuringPrep = new AtomicLong();
      job.start(c, config -> {
        long before = job.lastTrained(a);
        prepStartedAt.set(config.ticker().nanos());
        job.holdBefore(before + 40);
        job.awaitTrained(a, before + 3);
        job.awaitTrained(b, before + 3);
        trainedDuringPrep.set(job.lastTrained(a) - before);
        return ExecutionContext.FROM_SPEC.prepare(config);
      });
      job.awaitReady(c);
      job.release();
      SwitchRecord joined = job.awaitSwitch(c, 2);

      Worker.Outcome oa = job.outcome(a);
      Worker.Outcome ob = job.outcome(b);
      Worker.Outcome oc = job.outcome(c);
      assertTrue(trainedDuringPrep.get() >= 3, "existing workers trained while the newcomer prepared");

      long atStep = joined.atStep();
      long ready = job.readyNanos.get(c);
      assertTrue(ready > prepStartedAt.get());
      int broadcasters = 0;
      for (String existing : List.of(a, b)) {
        List<SwitchRecord> records = job.switches.get(existing);
        assertEquals(1, records.size(), existing + " switched once");
        SwitchRecord r = records.get(0);
        assertEquals(atStep, r.atStep());
        assertEquals(2, r.workersBefore());
        assertEquals(3, r.workersAfter());
        // The stop began at the switch step's batch end, after the newcomer was ready: its
        // start-up is not part of it.
        assertTrue(r.startNanos() > ready, existing + " stopped before the newcomer was ready");
        assertTrue(r.stoppedNanos() >= 0);
        assertTrue(r.firstBatchSecondsAfter() >= 0, "the first batch on the new ring is recorded too");
        broadcasters += r.role() == SwitchRecord.Role.BROADCASTER ? 1 : 0;
        assertEquals(SwitchRecord.Role.BROADCASTER == r.role() ? a : b, existing,
            "the first survivor broadcasts");
      }
      assertEquals(1, broadcasters);

      assertEquals(STEPS, oa.steps());
      assertEquals(STEPS, ob.steps());
      assertEquals(atStep + 1, oc.firstStep(), "the newcomer starts at the step after the switch");
      assertEquals(STEPS, oc.nextStep());
      for (Worker.Outcome o : List.of(oa, ob, oc)) {
        assertEquals(Worker.Ending.FINISHED, o.ending());
        assertEquals(3, o.workers());
      }
      assertIdentical(List.of(oa, ob, oc));
      assertEveryPositionOnce(job, STEPS * 24L);
      // A fixed global batch is split over however many workers run the step.
      Map<Long, Integer> perStep = job.batches.stream().collect(
          Collectors.groupingBy(ElasticJob.Batch::step, Collectors.summingInt(x -> x.positions().length())));
      perStep.values().forEach(n -> assertEquals(24, n));
      assertEquals(3, job.batches.stream().filter(x -> x.step() == atStep + 1).count());
      // Its first step started late (after the model arrived): the newcomer computed a smaller
      // part of it; from the next step on the parts are even again.
      Map<String, Integer> first = job.batches.stream().filter(x -> x.step() == atStep + 1)
          .collect(Collectors.toMap(ElasticJob.Batch::workerId, x -> x.positions().length()));
      assertTrue(first.get(c) < first.get(a) && first.get(c) < first.get(b), "first step's parts " + first);
      job.batches.stream().filter(x -> x.step() == atStep + 2)
          .forEach(x -> assertEquals(8, x.positions().length(), "even parts after the first step: " + x));
    }
  }

  /**
   * The members that stay learn of a switch from their heartbeat as soon as it is scheduled and
   * connect its ring (the broadcaster dials the newcomer) while they still train, here while they
   * are held before the next step and so send no report whose reply could carry the order.
   */
  @Test
  void theMembersThatStayConnectTheNextRingOnTheHeartbeatsNewsBeforeTheSwitchStep() throws Exception {
    try (ElasticJob job = job(2, 3, BatchRule.FIXED_GLOBAL, 24, Duration.ofMillis(5))) {
      String a = ElasticJob.id(job.appId, 1);
      String b = ElasticJob.id(job.appId, 2);
      String c = ElasticJob.id(job.appId, 3);
      job.holdBefore(10);
      job.start(a);
      job.start(b);
      job.awaitTrained(a, 9);
      job.awaitTrained(b, 9);
      job.start(c);
      job.awaitReady(c);
      job.awaitPreparedAhead(a, 2);
      job.awaitPreparedAhead(b, 2);
      assertEquals(9, job.lastTrained(a), "still held before step 10");
      assertEquals(9, job.lastTrained(b));
      assertFalse(job.preparedAhead.containsKey(c), "the newcomer has its order from its ready call");
      job.release();

      SwitchRecord joined = job.awaitSwitch(c, 2);
      assertTrue(joined.atStep() >= 10);
      List<Worker.Outcome> all = List.of(job.outcome(a), job.outcome(b), job.outcome(c));
      for (Worker.Outcome o : all) {
        assertEquals(Worker.Ending.FINISHED, o.ending());
        assertEquals(3, o.workers());
      }
      assertEquals(1, job.preparedAhead.get(a).size(), "one switch, prepared once: " + job.preparedAhead);
      assertIdentical(all);
      assertEveryPositionOnce(job, STEPS * 24L);
    }
  }

  @Test
  void aLeaverExitsAtTheScheduledStepAndTheOthersOnlySwitchRings() throws Exception {
    try (ElasticJob job = job(3, 3, BatchRule.FIXED_GLOBAL, 24, Duration.ofMillis(5))) {
      String a = ElasticJob.id(job.appId, 1);
      String b = ElasticJob.id(job.appId, 2);
      String c = ElasticJob.id(job.appId, 3);
      job.holdBefore(20);
      for (String w : List.of(a, b, c)) {
        job.start(w);
      }
      job.awaitTrained(c, 19);
      SwitchOrder order = job.leave(b);
      assertTrue(order.getAtStep() >= 20, "scheduled in the future: " + order);
      job.release();

      Worker.Outcome ob = job.outcome(b);
      assertEquals(Worker.Ending.LEFT, ob.ending());
      assertEquals(order.getAtStep() + 1, ob.nextStep(), "left right after the scheduled step");
      Worker.Outcome oa = job.outcome(a);
      Worker.Outcome oc = job.outcome(c);
      for (String w : List.of(a, c)) {
        SwitchRecord r = job.switchOf(w, order.getTopologyVersion());
        assertEquals(SwitchRecord.Role.SURVIVOR, r.role(), "no model to send: only the ring changes");
        assertEquals(order.getAtStep(), r.atStep());
        assertEquals(2, r.workersAfter());
      }
      assertEquals(STEPS, oa.steps());
      assertEquals(STEPS, oc.steps());
      assertEquals(2, oa.workers());
      assertIdentical(List.of(oa, oc));
      assertEveryPositionOnce(job, STEPS * 24L);
      assertTrue(job.batches.stream().noneMatch(x -> x.workerId().equals(b) && x.step() > order.getAtStep()));
    }
  }

  @Test
  void aLeaderThatLeavesHandsTheJobToASuccessor() throws Exception {
    try (ElasticJob job = job(3, 3, BatchRule.FIXED_GLOBAL, 24, Duration.ofMillis(5))) {
      List<String> ids = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2),
          ElasticJob.id(job.appId, 3));
      job.holdBefore(20);
      ids.forEach(job::start);
      for (String w : ids) {
        job.awaitTrained(w, 19);
      }
      String leader = ids.stream().filter(w -> job.worker(w).isLeading()).findFirst().orElseThrow();
      SwitchOrder order = job.worker(leader).leave();
      assertTrue(order.isLeaderLeaves());
      job.release();

      Worker.Outcome gone = job.outcome(leader);
      assertEquals(Worker.Ending.LEFT, gone.ending());
      assertFalse(gone.leader());
      assertTrue(gone.output().isEmpty());
      List<Worker.Outcome> rest = ids.stream().filter(w -> !w.equals(leader)).map(w -> {
        try {
          return job.outcome(w);
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }).toList();
      assertEquals(1, rest.stream().filter(Worker.Outcome::leader).count(), "one successor leads");
      Worker.Outcome successor = rest.stream().filter(Worker.Outcome::leader).findFirst().orElseThrow();
      assertTrue(Files.exists(Path.of(successor.output().orElseThrow().model().toUri())));
      for (Worker.Outcome o : rest) {
        assertEquals(STEPS, o.steps(), "training went on to the end");
        assertEquals(Worker.Ending.FINISHED, o.ending());
      }
      assertIdentical(rest);
      assertEveryPositionOnce(job, STEPS * 24L);
    }
  }

  /**
   * Migration as the AM runs it, at max-workers: the leader is told first that b and c leave at
   * the switch that admits the next two newcomers; then d and e start and, as any newcomer, report
   * ready as soon as they are prepared. One switch adds d and e and removes b and c.
   */
  @Test
  void aMigrationRemovesTwoAndAddsTwoInOneSwitch() throws Exception {
    try (ElasticJob job = job(3, 3, BatchRule.FIXED_GLOBAL, 24, Duration.ofMillis(5))) {
      List<String> ids = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2),
          ElasticJob.id(job.appId, 3), ElasticJob.id(job.appId, 4), ElasticJob.id(job.appId, 5));
      String a = ids.get(0);
      String b = ids.get(1);
      String c = ids.get(2);
      String d = ids.get(3);
      String e = ids.get(4);
      job.holdBefore(15);
      for (String w : List.of(a, b, c)) {
        job.start(w);
      }
      job.awaitTrained(c, 14);
      SwitchOrder announced = job.replace(List.of(b, c), 2);
      assertEquals(-1, announced.getAtStep(), "waits for the newcomers");
      job.start(d);
      job.start(e);
      // Held so the short job cannot end before the newcomers are there.
      job.awaitReady(d);
      job.awaitReady(e);
      job.release();
      SwitchRecord joined = job.awaitSwitch(d, 2);
      long atStep = joined.atStep();
      assertEquals(atStep, job.awaitSwitch(e, 2).atStep(), "both newcomers in the same switch");

      for (String leaver : List.of(b, c)) {
        Worker.Outcome o = job.outcome(leaver);
        assertEquals(Worker.Ending.LEFT, o.ending());
        assertEquals(atStep + 1, o.nextStep(), leaver + " left right after the switch step");
        SwitchRecord r = job.switchOf(leaver, 2);
        assertEquals(SwitchRecord.Role.LEAVER, r.role());
        assertEquals(atStep, r.atStep());
      }
      Worker.Outcome oa = job.outcome(a);
      Worker.Outcome od = job.outcome(d);
      Worker.Outcome oe = job.outcome(e);
      SwitchRecord ra = job.switchOf(a, 2);
      assertEquals(SwitchRecord.Role.BROADCASTER, ra.role(), "the one survivor sends the model");
      assertEquals(atStep, ra.atStep());
      assertEquals(3, ra.workersBefore());
      assertEquals(3, ra.workersAfter());
      assertEquals(1, job.switches.get(a).size(), "one switch for the whole migration");
      // The survivor stopped at the switch step's batch end, after both newcomers were ready:
      // their start-up is not part of its stop, only the broadcast is.
      assertTrue(ra.startNanos() > Math.max(job.readyNanos.get(d), job.readyNanos.get(e)));
      for (Worker.Outcome o : List.of(od, oe)) {
        assertEquals(atStep + 1, o.firstStep(), "newcomers start at the step after the switch");
      }
      for (Worker.Outcome o : List.of(oa, od, oe)) {
        assertEquals(Worker.Ending.FINISHED, o.ending());
        assertEquals(STEPS, o.nextStep());
        assertEquals(3, o.workers());
      }
      assertIdentical(List.of(oa, od, oe));
      assertEveryPositionOnce(job, STEPS * 24L);
      assertTrue(job.batches.stream().noneMatch(x -> (x.workerId().equals(b) || x.workerId().equals(c))
          && x.step() > atStep), "the leavers trained nothing after the switch");
      assertTrue(job.batches.stream().noneMatch(x -> (x.workerId().equals(d) || x.workerId().equals(e))
          && x.step() <= atStep), "the newcomers trained nothing before it");
    }
  }

  /**
   * The leader is among the workers replaced: the one switch also hands the job over, and the
   * others follow the successor.
   */
  @Test
  void aMigrationThatMovesTheLeaderHandsOverAtTheSameSwitch() throws Exception {
    try (ElasticJob job = job(2, 2, BatchRule.FIXED_GLOBAL, 24, Duration.ofMillis(5))) {
      List<String> first = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2));
      String newcomer = ElasticJob.id(job.appId, 3);
      job.holdBefore(15);
      first.forEach(job::start);
      for (String w : first) {
        job.awaitTrained(w, 14);
      }
      String leader = first.stream().filter(w -> job.worker(w).isLeading()).findFirst().orElseThrow();
      String stays = first.stream().filter(w -> !w.equals(leader)).findFirst().orElseThrow();
      job.replace(List.of(leader), 1);
      job.start(newcomer);
      job.awaitReady(newcomer);
      job.release();
      long atStep = job.awaitSwitch(newcomer, 2).atStep();

      Worker.Outcome gone = job.outcome(leader);
      assertEquals(Worker.Ending.LEFT, gone.ending());
      assertEquals(atStep + 1, gone.nextStep());
      assertFalse(gone.leader());
      Worker.Outcome os = job.outcome(stays);
      Worker.Outcome on = job.outcome(newcomer);
      assertEquals(SwitchRecord.Role.BROADCASTER, job.switchOf(stays, 2).role());
      assertEquals(1, List.of(os, on).stream().filter(Worker.Outcome::leader).count(), "one successor leads");
      for (Worker.Outcome o : List.of(os, on)) {
        assertEquals(Worker.Ending.FINISHED, o.ending());
        assertEquals(STEPS, o.nextStep());
      }
      assertIdentical(List.of(os, on));
      assertEveryPositionOnce(job, STEPS * 24L);
    }
  }

  /**
   * The race in a migration that moves the leader, made certain: the newcomer said ready and its
   * switch was scheduled, but it asks for its order only after the leader handed over at that
   * switch. The successor hands it the order it was admitted by, the model comes from that
   * order's broadcaster, and nobody recovers; before, the successor knew no order for it and the
   * survivor waited out its ring link to the newcomer.
   */
  @Test
  void aNewcomerThatAsksForItsOrderAfterTheHandOverGetsItFromTheSuccessor() throws Exception {
    try (ElasticJob job = job(2, 2, BatchRule.FIXED_GLOBAL, 24, Duration.ofMillis(5))) {
      List<String> first = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2));
      String newcomer = ElasticJob.id(job.appId, 3);
      job.holdBefore(15);
      first.forEach(job::start);
      for (String w : first) {
        job.awaitTrained(w, 14);
      }
      String leader = first.stream().filter(w -> job.worker(w).isLeading()).findFirst().orElseThrow();
      String stays = first.stream().filter(w -> !w.equals(leader)).findFirst().orElseThrow();
      job.onReadyToJoin = id -> {
        if (id.equals(newcomer)) {
          job.outcome(leader);
        }
      };
      job.replace(List.of(leader), 1);
      job.start(newcomer);
      job.awaitReady(newcomer);
      job.release();

      Worker.Outcome gone = job.outcome(leader);
      assertEquals(Worker.Ending.LEFT, gone.ending());
      long atStep = gone.nextStep() - 1;
      Worker.Outcome on = job.outcome(newcomer);
      Worker.Outcome os = job.outcome(stays);
      assertEquals(atStep, job.switchOf(newcomer, 2).atStep(), "the switch the newcomer was admitted by");
      assertEquals(SwitchRecord.Role.JOINER, job.switchOf(newcomer, 2).role());
      assertEquals(SwitchRecord.Role.BROADCASTER, job.switchOf(stays, 2).role());
      assertEquals(atStep + 1, on.firstStep(), "the newcomer starts at the step after the switch");
      assertEquals(Map.of(), job.recoveries, "nobody recovered");
      for (Worker.Outcome o : List.of(os, on)) {
        assertEquals(Worker.Ending.FINISHED, o.ending());
        assertEquals(STEPS, o.nextStep());
        assertEquals(2, o.workers());
      }
      assertIdentical(List.of(os, on));
      assertEveryPositionOnce(job, STEPS * 24L);
    }
  }

  /**
   * 2 -> 3 -> 2 -> 3 workers within the first epoch, with a fixed per-worker batch (so the global
   * batch changes with every switch): every sample of the epoch is trained exactly once.
   */
  @Test
  void anEpochThroughThreeRescalingsTrainsEverySampleExactlyOnce() throws Exception {
    int samples = 1000;
    int perWorker = 4;
    String appId = "application_7_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().name("elastic").model("softmax")
        .data("synthetic:samples=" + samples + ",features=12,classes=4,seed=11").format("auto").workers(2)
        .minWorkers(1).maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(180)
        .batchSize(perWorker).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(16).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).build();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ZERO)) {
      String a = ElasticJob.id(appId, 1);
      String b = ElasticJob.id(appId, 2);
      String c = ElasticJob.id(appId, 3);
      String d = ElasticJob.id(appId, 4);
      job.holdBefore(10);
      job.start(a);
      job.start(b);
      job.awaitTrained(b, 9);

      job.start(c);                       // 2 -> 3
      job.awaitReady(c);
      job.holdBefore(25);
      SwitchRecord first = job.awaitSwitch(c, 2);
      job.awaitTrained(c, 24);

      SwitchOrder leave = job.leave(b);   // 3 -> 2
      job.holdBefore(40);
      job.awaitSwitch(a, leave.getTopologyVersion());
      job.awaitTrained(a, 39);

      job.start(d);                       // 2 -> 3
      job.awaitReady(d);
      job.release();
      SwitchRecord third = job.awaitSwitch(d, 4);

      List<Worker.Outcome> finished = List.of(job.outcome(a), job.outcome(c), job.outcome(d));
      assertEquals(Worker.Ending.LEFT, job.outcome(b).ending());
      assertIdentical(finished);
      assertTrue(third.atStep() * 8 < samples, "all three switches fell inside the first epoch");
      assertEquals(10, first.atStep());

      // The batch rule: each step's global batch is the per-worker batch times its workers.
      Map<Long, List<ElasticJob.Batch>> bySteps = job.batches.stream()
          .collect(Collectors.groupingBy(ElasticJob.Batch::step));
      long end = 0;
      for (long step = 0; step < 180; step++) {
        List<ElasticJob.Batch> batch = bySteps.get(step);
        int global = batch.stream().mapToInt(x -> x.positions().length()).sum();
        assertEquals(perWorker * batch.size(), global, "step " + step);
        end += global;
      }
      assertEquals(3, bySteps.get(11L).size());
      assertEquals(2, bySteps.get(leave.getAtStep() + 1).size());
      assertEveryPositionOnce(job, end);

      int[] seen = new int[samples];
      for (ElasticJob.Batch x : job.batches) {
        for (int i = 0; i < x.samples().length; i++) {
          if (x.positions().from() + i < samples) {
            seen[x.samples()[i]]++;
          }
        }
      }
      for (int i = 0; i < samples; i++) {
        assertEquals(1, seen[i], "sample " + i + " in the first epoch");
      }
    }
  }

  /**
   * Scale-in as the AM answers a preemption: half the ring, the leader among them, asked to leave
   * one call at a time while periodic checkpoints are on. Nobody recovers: no worker begins a
   * step it already began, and the four that stay finish with identical parameters, every sample
   * position trained once.
   */
  @Test
  void halfTheRingLeavesOneCallAtATimeWithTheLeaderAmongThemAndNobodyGoesBack() throws Exception {
    halfTheRingLeaves(1);
  }

  /** The leader's own leave first: the others wait for the switch after it, under its successor. */
  @Test
  void halfTheRingLeavesOneCallAtATimeTheLeaderFirstAndItsSuccessorSchedulesTheRest() throws Exception {
    halfTheRingLeaves(0);
  }

  private void halfTheRingLeaves(int leaderAt) throws Exception {
    String appId = "application_7_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().name("elastic").model("softmax").data(DATA).format("auto").workers(8)
        .minWorkers(1).maxWorkers(8).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.3).hidden(16).seed(3).backend("cpu")
        .output(out.resolve(appId).toUri().toString()).checkpoints(10, 0, 3).build();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5))) {
      List<String> ids = new java.util.ArrayList<>();
      for (int i = 1; i <= 8; i++) {
        ids.add(ElasticJob.id(job.appId, i));
      }
      job.holdBefore(30);
      ids.forEach(job::start);
      for (String w : ids) {
        job.awaitTrained(w, 29);
      }
      String leader = ids.stream().filter(w -> job.worker(w).isLeading()).findFirst().orElseThrow();
      List<String> others = ids.stream().filter(w -> !w.equals(leader)).toList();
      List<String> leavers = new java.util.ArrayList<>(List.of(others.get(0), others.get(3), others.get(5)));
      leavers.add(leaderAt, leader);
      for (String w : leavers) {
        job.leave(w);
      }
      job.release();

      for (String w : leavers) {
        assertEquals(Worker.Ending.LEFT, job.outcome(w).ending(), w + " left");
      }
      List<Worker.Outcome> stayed = new java.util.ArrayList<>();
      for (String w : ids) {
        if (!leavers.contains(w)) {
          Worker.Outcome o = job.outcome(w);
          assertEquals(Worker.Ending.FINISHED, o.ending());
          assertEquals(STEPS, o.steps(), w + " trained to the end");
          assertEquals(4, o.workers());
          stayed.add(o);
        }
      }
      assertEquals(1, stayed.stream().filter(Worker.Outcome::leader).count(), "one successor leads");
      assertEquals(Map.of(), job.recoveries, "a graceful scale-in is no failure");
      assertFalse(job.checkpoints.isEmpty(), "periodic checkpoints were on: a recovery had one to go back to");
      for (String w : ids) {
        List<Long> begun = job.begun.get(w);
        for (int i = 1; i < begun.size(); i++) {
          assertTrue(begun.get(i) > begun.get(i - 1), w + " went back from step " + begun.get(i - 1)
              + " to " + begun.get(i));
        }
      }
      assertIdentical(stayed);
      assertEveryPositionOnce(job, STEPS * 24L);
    }
  }

  static void assertIdentical(List<Worker.Outcome> outcomes) {
    long expected = ElasticJob.checksum(outcomes.get(0).parameters());
    for (Worker.Outcome o : outcomes) {
      assertEquals(expected, ElasticJob.checksum(o.parameters()), o.workerId() + " holds other parameters: "
          + ElasticJob.describe(o.parameters()) + " vs " + ElasticJob.describe(outcomes.get(0).parameters()));
    }
  }

  /** The trained positions tile [0, end) exactly: no sample position twice, none skipped. */
  static void assertEveryPositionOnce(ElasticJob job, long end) {
    long next = 0;
    for (var r : job.positionsInOrder()) {
      assertEquals(next, r.from(), "gap or overlap at position " + next);
      next = r.to();
    }
    assertEquals(end, next);
  }
}
