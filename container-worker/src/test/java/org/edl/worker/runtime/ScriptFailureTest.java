package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.edl.job.Recovery;
import org.edl.testing.PythonTorch;
import org.edl.testing.ZooKeeperServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A script job's member lost (killed, or its script paused) while the others train, with the real
 * protocol: the survivors recover once, count one failure, and end identical; in consistent mode
 * where one worker alone ends.
 */
class ScriptFailureTest {
  /**
   * Each step starts with a collective of the script's own (the step's sample count summed over the
   * group, as a metric would be), inside {@code step.collective()}: a member lost between two steps
   * fails the others there first, in the script's code.
   */
  static final String COLLECTIVE_SCRIPT = ScriptJobTest.SCRIPT.replace("    opt.zero_grad()",
      "    count = torch.tensor([float(len(step.samples))])\n"
          + "    with step.collective():\n"
          + "        torch.distributed.all_reduce(count)\n"
          + "    opt.zero_grad()");
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  private ScriptJobs jobs;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  @BeforeEach
  void fixture() {
    jobs = new ScriptJobs(ZK, out);
  }
  /** Consistent recovery loads the checkpoint into the scripts and ends where one worker alone does. */
  @Test
  void aScriptMemberKilledMidJobIsRecoveredConsistentlyFromTheCheckpoint() throws Exception {
    double[] expected = jobs.alone();
    List<String> survivors;
    try (ElasticJob job = jobs.job(3, Recovery.Mode.CONSISTENT)) {
      survivors = jobs.killOneOfThree(job, ScriptJobTest.SCRIPT);
      assertEquals("consistent", job.recoveries.get(survivors.get(0)).get(0).mode());
    }
    for (String id : survivors) {
      ScriptJobs.assertClose(expected, jobs.params(id), id);
    }
  }

  /** Approximate recovery: the survivors drop the step in flight, form a new group and go on, identical. */
  @Test
  void aScriptMemberKilledMidJobIsRecoveredApproximatelyByTheSurvivors() throws Exception {
    List<String> survivors;
    try (ElasticJob job = jobs.job(3, Recovery.Mode.APPROXIMATE)) {
      survivors = jobs.killOneOfThree(job, ScriptJobTest.SCRIPT);
      assertEquals("approximate", job.recoveries.get(survivors.get(0)).get(0).mode());
    }
    ScriptJobs.assertClose(jobs.params(survivors.get(0)), jobs.params(survivors.get(1)), survivors.get(1));
  }

  /**
   * The leader's script paused (SIGSTOP) between two steps: its worker ends it once it has given no
   * sign of life for 5 s and fails; the others, whose group then breaks, recover without it and
   * count one failure, instead of waiting in their all-reduce for the group's 60 s timeout.
   */
  @Test
  void aLeaderWhoseScriptIsPausedIsEndedByItsWorkerAndTheOthersRecoverWithoutIt() throws Exception {
    try (ElasticJob job = jobs.job(3, Recovery.Mode.APPROXIMATE)) {
      AtomicReference<String> paused = new AtomicReference<>();
      jobs.loseOneOfThree(job, ScriptJobTest.SCRIPT, ids -> ids.stream().filter(id -> job.worker(id).isLeading()).findFirst()
          .orElseThrow(), victim -> {
        paused.set(victim);
        try {
          assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(jobs.scripts.get(victim).pid())).start()
              .waitFor());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      String victim = paused.get();
      java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
          java.util.concurrent.ExecutionException.class, () -> job.outcome(victim));
      assertTrue(e.getCause().getMessage().contains("the script gave no sign of life for 5 s"), e.getCause().toString());
    }
  }

  /**
   * A BatchNorm model, a member killed between two steps: the survivors' next forward pass has no
   * collective to fail in (the buffers go to every member in step.backward), so they drop the step
   * there and recover once, with one failure, and end with the same parameters and buffers.
   */
  @Test
  void aMemberKilledBeforeTheOthersBatchNormForwardCostsOneFailureAndTheyEndIdentical() throws Exception {
    List<String> survivors;
    try (ElasticJob job = jobs.job(3, Recovery.Mode.CONSISTENT)) {
      survivors = jobs.killOneOfThree(job, ScriptJobTest.BATCH_NORM_SCRIPT);
    }
    ScriptJobs.assertClose(jobs.params(survivors.get(0)), jobs.params(survivors.get(1)), survivors.get(1));
    ScriptJobs.assertClose(jobs.read(survivors.get(0), "buffers.txt"), jobs.read(survivors.get(1), "buffers.txt"),
        survivors.get(1) + "'s running statistics");
  }

  /** The script's own collective fails first; the step is dropped there as in step.backward: one failure. */
  @Test
  void aMemberKilledBeforeTheOthersOwnCollectiveCostsOneFailureAndTheyEndIdentical() throws Exception {
    List<String> survivors;
    try (ElasticJob job = jobs.job(3, Recovery.Mode.APPROXIMATE)) {
      survivors = jobs.killOneOfThree(job, COLLECTIVE_SCRIPT);
    }
    ScriptJobs.assertClose(jobs.params(survivors.get(0)), jobs.params(survivors.get(1)), survivors.get(1));
  }

  /**
   * A DataLoader job's member killed: consistent recovery goes back to the checkpoint, the
   * survivors' loaders drop what they prefetched and start again from the step after it (the
   * script checks every batch against its step), and they end where one worker alone ends.
   */
  @Test
  void aDataLoaderJobsMemberKilledIsRecoveredFromTheCheckpointWithTheLoadersStartedAgain() throws Exception {
    double[] expected = jobs.alone();
    List<String> survivors;
    try (ElasticJob job = jobs.job(3, Recovery.Mode.CONSISTENT)) {
      survivors = jobs.killOneOfThree(job, ScriptJobTest.LOADER_SCRIPT);
    }
    for (String id : survivors) {
      ScriptJobs.assertClose(expected, jobs.params(id), id);
    }
  }
}
