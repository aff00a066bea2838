package org.edl.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.client.SubmittedJob;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.BatchRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks, and how a run's row and note are made from them, on output written to a local directory. */
class RunChecksTest {
  private static final long STEPS = 900;
  private static final int BATCH = 1024;

  @TempDir
  Path dir;

  private SubmittedJob job(Recovery.Mode mode) {
    JobSpec spec = JobSpec.builder().name("chaos-test").model("mlp")
        .data("synthetic:samples=10,features=2,classes=2").format("auto").workers(4).minWorkers(1)
        .maxWorkers(4).gpusPerWorker(1).workerMemoryMb(768).workerVcores(1).steps(STEPS).batchSize(BATCH)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(16).seed(1).backend("cpu")
        .output(dir.toUri().toString()).recovery(new Recovery(mode, 10_000, 3)).build();
    return new SubmittedJob(ApplicationId.newInstance(1_700_000_000_000L, 7), spec, JobSecret.generate(), "staging");
  }

  private void writeOutput(long steps, long samples) throws IOException {
    Files.write(dir.resolve("model.bin"), new byte[] {1, 2, 3});
    Files.writeString(dir.resolve("metrics.json"), String.format("{%n  \"model\": \"mlp\",%n  \"workers\": 4,%n"
        + "  \"steps\": %d,%n  \"samples_seen\": %d,%n  \"first_loss\": 2.30,%n  \"last_loss\": null%n}%n", steps, samples));
  }

  private RunEvidence evidence(String outcome, Recovery.Mode mode, List<FaultRecovery> faults) {
    return evidence(outcome, mode, faults, 1, 1);
  }

  private RunEvidence evidence(String outcome, Recovery.Mode mode, List<FaultRecovery> faults, int counted,
      int expected) {
    return new RunEvidence(3, job(mode), outcome, "Training finished\nmore", 880,
        JobOutput.read(new Configuration(), dir.toUri().toString()), faults, counted, expected, leaderships);
  }

  private LeadershipLog leaderships = new LeadershipLog(java.util.Map.of(1L, 1_000L), List.of(), -1, -1);

  @Test
  void anOrderOfALeadershipTakenAfterANewerOneBeganFailsTheLeadersCheck() throws IOException {
    writeOutput(STEPS, STEPS * BATCH);
    leaderships = new LeadershipLog(java.util.Map.of(1L, 1_000L, 2L, 5_000L),
        List.of(new LeadershipLog.Act(1, 4_000, "c2 received switch epoch 1 v2"),
            new LeadershipLog.Act(2, 6_000, "c2 received recovery epoch 2 v3")), -1, -1);
    ChaosRun fine = ChaosBench.judge(schedule(), evidence("SUCCEEDED", Recovery.Mode.CONSISTENT, List.of()),
        RunChecks.standard());
    assertTrue(fine.asPromised(), fine.toString());

    leaderships = new LeadershipLog(java.util.Map.of(1L, 1_000L, 2L, 5_000L),
        List.of(new LeadershipLog.Act(1, 7_000, "c3 received recovery epoch 1 v3")), 2, 8_000);
    ChaosRun twoLeaders = ChaosBench.judge(schedule(), evidence("SUCCEEDED", Recovery.Mode.CONSISTENT, List.of()),
        RunChecks.standard());
    assertFalse(twoLeaders.asPromised(), twoLeaders.toString());
    assertTrue(twoLeaders.note().contains("c3 received recovery epoch 1"), twoLeaders.note());
  }

  private static FaultSchedule schedule() {
    return new FaultSchedule(3, List.of(new Fault(20, Fault.Kind.KILL_WORKER, 0)));
  }

  @Test
  void aRunThatKeptEveryPromise() throws IOException {
    writeOutput(STEPS, STEPS * BATCH);
    FaultRecovery kill = FaultRecovery.applied(new Fault(20, Fault.Kind.KILL_WORKER, 0), "c2", 20,
        new FaultRecovery.Observation(19.9, null, "a1"));
    ChaosRun r = ChaosBench.judge(schedule(), evidence("SUCCEEDED", Recovery.Mode.CONSISTENT, List.of(kill)),
        RunChecks.standard());
    assertTrue(r.asPromised(), r.toString());
    assertEquals(STEPS, r.finalStep());
    assertTrue(Double.isNaN(r.recoverySecondsMax()), "the kill's recovery was never observed");
    assertEquals("kill-worker@20.0", r.faults());
    assertTrue(r.note().startsWith("application_1700000000000_0007; kill-worker@20.0 on c2 at 20.0 s"), r.note());
    assertFalse(r.note().contains("failed"), r.note());
  }

  @Test
  void samplesCountedTwiceAndAShortRunAreCaught() throws IOException {
    writeOutput(STEPS - 1, STEPS * BATCH + BATCH);
    ChaosRun r = ChaosBench.judge(schedule(), evidence("SUCCEEDED", Recovery.Mode.CONSISTENT, List.of()),
        RunChecks.standard());
    assertFalse(r.samplesOk());
    assertTrue(r.modelOk());
    assertEquals(STEPS - 1, r.finalStep());
    assertTrue(r.note().contains("steps failed: steps 899 of 900"), r.note());
    assertTrue(r.note().contains("samples failed: samples_seen 922624, steps x global batch 921600"), r.note());
  }

  @Test
  void aFailedJobWithoutOutputReportsTheLastStepSeen() {
    ChaosRun r = ChaosBench.judge(schedule(), evidence("FAILED", Recovery.Mode.CONSISTENT, List.of()),
        RunChecks.standard());
    assertFalse(r.modelOk() || r.samplesOk());
    assertEquals(880, r.finalStep());
    assertTrue(r.note().contains("outcome failed: FAILED: Training finished;"), r.note());
    assertTrue(r.note().contains("model failed: model.bin missing, metrics.json missing"), r.note());
  }

  @Test
  void aFaultThatCostMoreWorkersThanItShouldIsNoted() throws IOException {
    writeOutput(STEPS, STEPS * BATCH);
    ChaosRun r = ChaosBench.judge(schedule(), evidence("SUCCEEDED", Recovery.Mode.CONSISTENT, List.of(), 3, 1),
        RunChecks.standard());
    assertTrue(r.asPromised(), "the job still kept its promises");
    assertTrue(r.note().endsWith("failures failed: the AM counted 3 worker failure(s), the faults cost 1"), r.note());
  }

  @Test
  void theAmCountIsReadFromItsTextAndSummedOverAttempts() {
    assertEquals(0, WorkerFailureCount.in(null));
    assertEquals(0, WorkerFailureCount.in("the job runs"));
    assertEquals(2, WorkerFailureCount.in("worker failures: 2 of 3 allowed (c2 on h (exit status 4))"));
    WorkerFailureCount c = new WorkerFailureCount();
    c.saw("attempt_1", "worker failures: 1 of 3 allowed (...)");
    c.saw("attempt_1", "worker failures: 2 of 3 allowed (...)");
    c.saw("attempt_1", "");
    c.saw("attempt_2", "worker failures: 1 of 3 allowed (...)");
    assertEquals(3, c.total(), "no container named: each attempt's count, summed");
    WorkerFailureCount named = new WorkerFailureCount();
    named.saw("attempt_1", "x failed; worker failures: 2 of 3 allowed (container_1_0001_01_000003 on localhost"
        + " (exit status 4), container_1_0001_01_000005 on localhost (exit status 4))");
    named.saw("attempt_2", "worker failures: 1 of 3 allowed (container_1_0001_01_000004 on localhost (exit status 4))");
    named.saw("attempt_2", "worker failures: 2 of 3 allowed (container_1_0001_01_000003 on localhost (exit status 4),"
        + " container_1_0001_01_000004 on localhost (exit status 4))");
    assertEquals(3, named.total(), "the containers named, once each, whatever each attempt counts");
  }

  @Test
  void approximateRecoveryIsNotHeldToTheConsistentCount() throws IOException {
    writeOutput(STEPS, 1);
    RunCheck.Verdict v = new RunChecks.Samples().check(evidence("SUCCEEDED", Recovery.Mode.APPROXIMATE, List.of()));
    assertTrue(v.ok());
    assertTrue(v.note().startsWith("not checked: approximate"), v.note());
  }

  @Test
  void anAddedCheckRunsAfterTheStandardOnesAndAThrowingOneFails() throws IOException {
    writeOutput(STEPS, STEPS * BATCH);
    RunCheck lossFinite = new RunCheck() {
      @Override
      public String name() {
        return "loss";
      }

      @Override
      public Verdict check(RunEvidence run) {
        return run.output().metrics().get("last_loss").isNull() ? Verdict.failed("last_loss is null")
            : Verdict.ok("finite");
      }
    };
    RunCheck broken = new RunCheck() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public Verdict check(RunEvidence run) {
        throw new IllegalStateException("boom");
      }
    };
    ChaosBench bench = new ChaosBench(ChaosBench.Options.of(1, 1, 100, 4, 3, 50, 100),
        new PrintWriter(new StringWriter())).withChecks(List.of(lossFinite, broken));
    assertEquals(List.of("outcome", "model", "steps", "samples", "failures", "leaders", "loss", "broken"), bench.checkNames());
    List<RunCheck> checks = new java.util.ArrayList<>(RunChecks.standard());
    checks.add(lossFinite);
    checks.add(broken);
    ChaosRun r = ChaosBench.judge(schedule(), evidence("SUCCEEDED", Recovery.Mode.CONSISTENT, List.of()), checks);
    assertTrue(r.asPromised(), "the columns come from the standard checks");
    assertTrue(r.note().endsWith("loss failed: last_loss is null; broken failed: the check threw"
        + " java.lang.IllegalStateException: boom"), r.note());
  }

  @Test
  void badOptionsNameTheirFlag() {
    assertFlag("--seeds=0", () -> ChaosBench.Options.of(0, 1, 100, 4, 3, 50, 100).validate());
    assertFlag("--workers=1", () -> ChaosBench.Options.of(1, 1, 100, 1, 3, 50, 100).validate());
    assertFlag("--workers=8", () -> ChaosBench.Options.of(1, 1, 100, 8, 3, 50, 100).validate());
    assertFlag("--steps=0", () -> ChaosBench.Options.of(1, 1, 0, 4, 3, 50, 100).validate());
    assertFlag("--max-worker-failures=-1", () -> ChaosBench.Options.of(1, 1, 100, 4, -1, 50, 100).validate());
    assertFlag("--checkpoint-every=0", () -> ChaosBench.Options.of(1, 1, 100, 4, 3, 0, 100).validate());
    assertFlag("--expected-seconds=5.0", () -> ChaosBench.Options.of(1, 1, 100, 4, 3, 50, 5).validate());
  }

  private static void assertFlag(String start, org.junit.jupiter.api.function.Executable e) {
    InvalidInputException x = assertThrows(InvalidInputException.class, e);
    assertTrue(x.getMessage().startsWith(start + ": "), x.getMessage());
  }
}
