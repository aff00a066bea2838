package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.cluster.FairSchedulerAllocationFile;
import org.edl.job.JobSpec;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiresias' pause on a live cluster: the ResourceManager runs the Elastic-Tiresias mode, a job of
 * one size (min = max workers) that has left the first queue is passed over for a new job, and
 * the ApplicationMaster answers the warning for all its containers with a stop-resume at the
 * same size: it stops with a checkpoint, gives every GPU back, asks again, and resumes from the
 * checkpoint once the new job is done with them. No worker fails and no step is lost.
 */
class PauseEndToEndTest {
  /** The job outlives the test; the test kills it. */
  private static final long STEPS = 10_000_000;
  /**
   * The first queue's bound in GPU-seconds: alice's 4 GPUs leave it in 12 s, bob's 2 in 24 s. Low,
   * because each test waits until alice's job has left it; bob's jobs (40 and 4000 steps) hold
   * their 2 GPUs 5-8 s on a 2-core machine (10-16 GPU-seconds), so they end well inside it.
   */
  private static final int FIRST_QUEUE_GPU_SECONDS = 48;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster(b -> b.nodes(1).gpusPerNode(4)
      .schedulingMode(FairSchedulerAllocationFile.Mode.ELASTIC_TIRESIAS).preemptionGraceMs(60_000)
      .tiresiasQueueLimits(Integer.toString(FIRST_QUEUE_GPU_SECONDS)));

  @BeforeAll
  static void makeHomeDirectories() throws Exception {
    FileSystem fs = CLUSTER.fileSystem();
    for (String user : List.of("alice", "bob")) {
      Path home = new Path("/user/" + user);
      fs.mkdirs(home);
      fs.setOwner(home, user, null);
    }
  }

  private static JobSpec oneSize(String name, int workers, long steps) {
    return JobSpec.builder().name(name).model("mlp")
        .data("synthetic:samples=4096,features=16,classes=4,seed=5").format("auto").workers(workers)
        .minWorkers(workers).maxWorkers(workers).gpusPerWorker(2).workerMemoryMb(512).workerVcores(1).steps(steps)
        .batchSize(64).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(16).seed(1)
        .backend("cpu").build();
  }

  private static SubmittedJob submit(String user, JobSpec spec) throws Exception {
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
    return ugi.doAs((PrivilegedExceptionAction<SubmittedJob>) () -> {
      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(CLUSTER.configuration());
      yarn.start();
      try {
        return new JobSubmitter(CLUSTER.configuration(), yarn).submit(spec);
      } finally {
        yarn.stop();
      }
    });
  }

  private static ApplicationReport registered(SubmittedJob job) throws Exception {
    return Await.until(job.appId() + "'s AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
  }

  private static long gpuSeconds(SubmittedJob job) throws Exception {
    Map<String, Long> used = CLUSTER.yarn().getApplicationReport(job.appId()).getApplicationResourceUsageReport()
        .getResourceSecondsMap();
    return used.getOrDefault(ResourceInformation.GPU_URI, 0L);
  }

  @Test
  void aJobOfOneSizePassedOverByANewJobPausesWithACheckpointAndResumesWhenTheGpusAreFree() throws Exception {
    JobSpec alicesSpec = oneSize("alice-one-size", 2, STEPS);
    SubmittedJob alices = submit("alice", alicesSpec);
    withAlice(alices, others -> {
      ApplicationReport aliceAm = registered(alices);
      assertTrue(aliceAm.getApplicationTags().containsAll(List.of("edl-min-gpus=4", "edl-max-gpus=4")),
          aliceAm.getApplicationTags().toString());
      try (RpcConnection ac = RpcClient.open(aliceAm.getHost(), aliceAm.getRpcPort(), alices.secret(),
          Duration.ofSeconds(30))) {
        JobWatch alice = new JobWatch("alice's job", new JobControl.Client(ac.protocol()),
            alicesSpec.training().batchSize());
        JobStatus first = alice.until("alice's 2 workers training on all 4 GPUs",
            s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 2);
        List<String> before = List.copyOf(first.getContainers());
        Await.until("alice's job to leave the first queue (" + FIRST_QUEUE_GPU_SECONDS + " GPU-seconds)",
            () -> gpuSeconds(alices) > FIRST_QUEUE_GPU_SECONDS + 8);

        SubmittedJob bobs = submit("bob", oneSize("bob-one-size", 1, 40));
        others.add(bobs);
        JobStatus paused = Await.until("alice's job paused", alice::poll, s -> s.getState() == JobState.SCALING
            && s.isSetDiagnostics() && s.getDiagnostics().startsWith("paused") && s.getContainersSize() == 0,
            Duration.ofMinutes(5));
        assertEquals(2, paused.getTargetWorkers(), paused.toString());
        long stepAtPause = alice.lastStep;

        assertSucceeds(bobs, "bob's job to finish on the GPUs alice gave back");

        JobStatus resumed = alice.until("alice's job to resume on 2 new workers", s -> s.getState() == JobState.RUNNING
            && s.getProgress().getWorkers() == 2 && s.getProgress().getStep() > stepAtPause + 5);
        assertEquals(2, resumed.getContainersSize());
        assertAllNew(resumed.getContainers(), before);
        assertEquals(Set.copyOf(resumed.getContainers()), Set.copyOf(resumed.getProgress().getMembers()),
            "the new ring reports: " + resumed);
        assertTrue(alice.events.stream().noneMatch(e -> e.contains("was preempted by the scheduler")),
            "the job gave its GPUs back before the grace period ended: " + alice.events);
        String d = resumed.isSetDiagnostics() ? resumed.getDiagnostics() : "";
        assertFalse(d.contains("failure"), d);
        assertTrue(alice.events.stream().anyMatch(e -> e.contains("every worker stopped with a checkpoint")),
            "resumed from the pause's own checkpoint: " + alice.events);
      }
    });
  }

  /**
   * The awkward moment: alice's ApplicationMaster is killed (SIGKILL) while her job is paused and
   * waits for its containers. The second attempt takes the pause over from the journal, asks for
   * the containers again, and the job resumes from the pause's checkpoint, with no worker failure.
   */
  @Test
  void anAmKilledWhileItsJobIsPausedIsSucceededByOneThatResumesIt() throws Exception {
    JobSpec alicesSpec = oneSize("alice-failover", 2, STEPS);
    SubmittedJob alices = submit("alice", alicesSpec);
    withAlice(alices, others -> {
      ApplicationReport first = registered(alices);
      List<String> before;
      long stepAtPause;
      try (RpcConnection ac = RpcClient.open(first.getHost(), first.getRpcPort(), alices.secret(),
          Duration.ofSeconds(30))) {
        JobWatch alice = new JobWatch("alice's job", new JobControl.Client(ac.protocol()),
            alicesSpec.training().batchSize());
        before = List.copyOf(alice.until("alice's 2 workers training",
            s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 2).getContainers());
        Await.until("alice's job to leave the first queue", () -> gpuSeconds(alices) > FIRST_QUEUE_GPU_SECONDS + 8);
        others.add(submit("bob", oneSize("bob-longer", 1, 4000)));
        Await.until("alice's job paused", alice::poll, s -> s.getState() == JobState.SCALING
            && s.isSetDiagnostics() && s.getDiagnostics().startsWith("paused"), Duration.ofMinutes(5));
        stepAtPause = alice.lastStep;
      }
      CLUSTER.yarn().signalToContainer(CLUSTER.yarn().getApplicationAttemptReport(
          first.getCurrentApplicationAttemptId()).getAMContainerId(), SignalContainerCommand.FORCEFUL_SHUTDOWN);

      ApplicationReport second = Await.until("a second AM attempt to register",
          () -> CLUSTER.yarn().getApplicationReport(alices.appId()),
          r -> r.getCurrentApplicationAttemptId().getAttemptId() == 2 && r.getRpcPort() > 0
              && r.getYarnApplicationState() == YarnApplicationState.RUNNING, Duration.ofMinutes(5));
      try (RpcConnection ac = RpcClient.open(second.getHost(), second.getRpcPort(), alices.secret(),
          Duration.ofSeconds(30))) {
        JobWatch alice = new JobWatch("alice's job, second attempt", new JobControl.Client(ac.protocol()),
            alicesSpec.training().batchSize());
        alice.lastStep = stepAtPause;
        JobStatus resumed = alice.until("alice's job to resume under the second attempt",
            s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 2
                && s.getProgress().getStep() > stepAtPause + 5);
        assertAllNew(resumed.getContainers(), before);
        assertTrue(alice.events.stream().anyMatch(e -> e.contains("taking over its change") && e.contains("pause")),
            "the second attempt took the pause over: " + alice.events);
      }
      assertSucceeds(others.get(0), "bob's job to finish");
    });
  }

  /** What a test does with alice's job and the others it submits (which it adds to {@code others}). */
  @FunctionalInterface
  private interface Scenario {
    void run(List<SubmittedJob> others) throws Exception;
  }

  /** Runs {@code body}; alice's diagnostics go with any failure, and every job is killed after it. */
  private static void withAlice(SubmittedJob alices, Scenario body) throws Exception {
    List<SubmittedJob> others = new java.util.ArrayList<>();
    try {
      body.run(others);
    } catch (Throwable t) {
      t.addSuppressed(new AssertionError("alice's application diagnostics: "
          + CLUSTER.yarn().getApplicationReport(alices.appId()).getDiagnostics()));
      throw t;
    } finally {
      CLUSTER.yarn().killApplication(alices.appId());
      for (SubmittedJob o : others) {
        CLUSTER.yarn().killApplication(o.appId());
      }
    }
  }

  private static void assertSucceeds(SubmittedJob job, String what) throws Exception {
    ApplicationReport end = Await.until(what, () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.FINISHED, Duration.ofMinutes(5));
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
  }

  private static void assertAllNew(List<String> containers, List<String> before) {
    for (String c : containers) {
      assertFalse(before.contains(c), "every container is new: " + containers + " " + before);
    }
  }
}
