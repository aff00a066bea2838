package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.Growth;
import org.edl.job.JobSpec;
import org.edl.job.WorkerEnv;
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
 * Fair GPU sharing and jobs that grow by themselves, seen from real EDL jobs: the embedded cluster's ResourceManager runs the
 * scheduler plugin (per-user queues, deserved-share preemption with a short grace period), and
 * each user submits through {@link JobSubmitter} as themself. The RM warns; the AM answers with
 * a graceful scale-in of exactly the warned workers; nothing is killed as a failure and the
 * job's training goes on without losing a step.
 */
class PreemptionEndToEndTest {
  /** The job outlives the test; the test kills it. */
  private static final long STEPS = 10_000_000;
  /** Short, so a test whose leave comes late still ends soon; the leave normally beats it. */
  private static final long GRACE_MS = 20_000;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster(b -> b.preemptionGraceMs(GRACE_MS));

  @BeforeAll
  static void makeHomeDirectories() throws Exception {
    // The users' home directories, as an administrator makes them on a real cluster.
    FileSystem fs = CLUSTER.fileSystem();
    for (String user : List.of("alice", "bob", "carol", "dave")) {
      Path home = new Path("/user/" + user);
      fs.mkdirs(home);
      fs.setOwner(home, user, null);
    }
  }

  private static JobSpec spec(String name, int workers, int min, int max) {
    return JobSpec.builder().name(name).model("mlp")
        .data("synthetic:samples=4096,features=16,classes=4,seed=5").format("auto").workers(workers)
        .minWorkers(min).maxWorkers(max).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(STEPS)
        .batchSize(64).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(16).seed(1)
        .backend("cpu").build();
  }

  /** A user's session: their own YARN client and file system, as `edl submit` run by them has. */
  private record User(String name, UserGroupInformation ugi, YarnClient yarn) implements AutoCloseable {
    static User login(String name) throws Exception {
      UserGroupInformation ugi = UserGroupInformation.createRemoteUser(name);
      YarnClient yarn = ugi.doAs((PrivilegedExceptionAction<YarnClient>) () -> {
        YarnClient y = YarnClient.createYarnClient();
        y.init(CLUSTER.configuration());
        y.start();
        return y;
      });
      return new User(name, ugi, yarn);
    }

    SubmittedJob submit(JobSpec spec) throws Exception {
      return submit(spec, 0);
    }

    SubmittedJob submit(JobSpec spec, int priority) throws Exception {
      return ugi.doAs((PrivilegedExceptionAction<SubmittedJob>) () ->
          new JobSubmitter(CLUSTER.configuration(), yarn).withPriority(priority).submit(spec));
    }

    ApplicationReport registered(SubmittedJob job) throws Exception {
      return Await.until(name + "'s AM to register", () -> yarn.getApplicationReport(job.appId()),
          r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0);
    }

    @Override
    public void close() {
      yarn.stop();
    }
  }

  private static RpcConnection control(ApplicationReport am, SubmittedJob job) throws Exception {
    return RpcClient.open(am.getHost(), am.getRpcPort(), job.secret(), Duration.ofSeconds(30));
  }

  /**
   * Bob's elastic job (min 2, max 8, growth on) alone on the idle cluster grows to all 8 GPUs by
   * itself, one extra at a time. Alice submits a 4-GPU job: the RM warns, Bob's job gives up
   * exactly the warned workers by graceful scale-in (no new container, nothing killed as a
   * failure), and Alice's job runs and finishes. Then Bob's job grows back to 8. Throughout, the
   * step never goes back and every step counted its global batch once.
   */
  @Test
  void anElasticJobGrowsIntoTheIdleClusterGivesBackToAnotherUserAndGrowsBackWhenSheIsDone() throws Exception {
    try (User bob = User.login("bob"); User alice = User.login("alice")) {
      JobSpec bobsSpec = spec("bob-elastic", 2, 2, 8).toBuilder().growth(new Growth(true, Double.NaN, 5_000)).build();
      SubmittedJob bobs = bob.submit(bobsSpec);
      ApplicationReport bobAm = bob.registered(bobs);
      assertTrue(bobAm.getApplicationTags().contains("edl-min-gpus=2"), bobAm.getApplicationTags().toString());
      assertEquals("root.users.bob", bobAm.getQueue());
      SubmittedJob alices = null;
      try (RpcConnection bc = control(bobAm, bobs)) {
        JobControl.Client bobControl = new JobControl.Client(bc.protocol());
        JobWatch watch = new JobWatch("bob's job", bobControl, bobsSpec.training().batchSize());
        JobStatus eight = watch.until("bob's job to grow to all 8 GPUs by itself", s -> s.getState() == JobState.RUNNING
            && s.getProgress().getWorkers() == 8 && s.getContainersSize() == 8);
        assertEquals(8, eight.getTargetWorkers());
        List<String> first = List.copyOf(eight.getContainers());

        alices = alice.submit(spec("alice", 4, 4, 4).toBuilder().steps(60).build());
        ApplicationReport aliceAm = alice.registered(alices);
        assertEquals("root.users.alice", aliceAm.getQueue());
        JobStatus four = watch.until("bob's job to shrink to 4 workers", s -> s.getState() == JobState.RUNNING
            && s.getProgress().getWorkers() == 4 && s.getContainersSize() == 4);
        assertEquals(4, four.getTargetWorkers(), "nothing is requested to replace a preempted worker");
        assertTrue(first.containsAll(four.getContainers()), "no new container: " + four.getContainers());
        for (String e : watch.events) {
          assertTrue(e.isEmpty() || e.contains("grew into an idle GPU") || e.contains("training started")
              || e.contains("left the job (SCALE_IN, exit status " + WorkerEnv.EXIT_LEFT + ")")
              || e.contains("left the job (SCALE_IN, exit status " + ContainerExitStatus.PREEMPTED + ")"),
              "each departure is the scale-in completing: " + e);
        }

        ApplicationReport alicesEnd = Await.until("alice's job to finish", () -> alice.yarn().getApplicationReport(
            aliceAm.getApplicationId()), r -> r.getYarnApplicationState() == YarnApplicationState.FINISHED,
            Duration.ofMinutes(5));
        assertEquals(FinalApplicationStatus.SUCCEEDED, alicesEnd.getFinalApplicationStatus(), alicesEnd.getDiagnostics());
        JobStatus back = watch.until("bob's job to grow back to 8", s -> s.getState() == JobState.RUNNING
            && s.getProgress().getWorkers() == 8 && s.getContainersSize() == 8);
        assertEquals(8, back.getTargetWorkers());
        assertTrue(watch.sizes.containsAll(List.of(2, 8, 4)), "sizes seen: " + watch.sizes);
      } catch (Throwable t) {
        t.addSuppressed(new AssertionError("bob's application diagnostics: "
            + bob.yarn().getApplicationReport(bobs.appId()).getDiagnostics()));
        throw t;
      } finally {
        bob.yarn().killApplication(bobs.appId());
        if (alices != null) {
          alice.yarn().killApplication(alices.appId());
        }
      }
    }
  }

  /**
   * Carol's job holds 6 of the 8 GPUs, all guaranteed. Dave's job asks for 4 workers with a
   * minimum of 2: it trains with the 2 GPUs there are as soon as its gathering window passes,
   * RUNNING, not waiting for the rest; when Carol's job ends, the other 2 join it stop-free.
   */
  @Test
  void aJobGivenOnlyItsMinimumTrainsAtOnceAndTakesTheRestAsItArrives() throws Exception {
    try (User carol = User.login("carol"); User dave = User.login("dave")) {
      SubmittedJob blocker = carol.submit(spec("carol-six", 6, 6, 6));
      SubmittedJob daves = null;
      try {
        ApplicationReport carolAm = carol.registered(blocker);
        try (RpcConnection cc = control(carolAm, blocker)) {
          JobControl.Client carolControl = new JobControl.Client(cc.protocol());
          Await.until("carol's 6 workers training", carolControl::status,
              s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getWorkers() == 6);
        }
        daves = dave.submit(spec("dave-at-min", 4, 2, 4).toBuilder().gatherMs(2_000).build());
        ApplicationReport daveAm = dave.registered(daves);
        try (RpcConnection dc = control(daveAm, daves)) {
          JobControl.Client daveControl = new JobControl.Client(dc.protocol());
          JobStatus two = Await.until("dave's job training with its 2 workers", daveControl::status,
              s -> s.isSetProgress() && s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 5);
          assertEquals(JobState.RUNNING, two.getState(), two.toString());
          assertEquals(2, two.getTargetWorkers(), two.toString());

          carol.yarn().killApplication(blocker.appId());
          long stepAtTwo = two.getProgress().getStep();
          JobStatus four = Await.until("the rest of dave's workers to join", daveControl::status,
              s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getWorkers() == 4,
              Duration.ofMinutes(4));
          assertTrue(four.getProgress().getStep() > stepAtTwo, four.toString());
          assertEquals(4, four.getTargetWorkers());
          String d = four.isSetDiagnostics() ? four.getDiagnostics() : "";
          assertFalse(d.contains("failed"), d);
        }
      } finally {
        carol.yarn().killApplication(blocker.appId());
        if (daves != null) {
          dave.yarn().killApplication(daves.appId());
        }
      }
    }
  }

  /**
   * Carol alone runs two jobs and holds all 8 GPUs: one at its minimum (4 workers, min 4), one
   * elastic (4 workers, min 1) at a higher priority. Dave submits a 3-GPU job. Neither Carol's
   * number of jobs nor their priority keeps her above her share: the elastic job gives up 3
   * workers by graceful scale-in, down to exactly its min-workers, and Dave's job runs on 3 GPUs.
   * The job at its minimum is never asked for a worker: its containers stay as they were. (Which
   * of a job's workers go, and the ordering of a user's applications by priority, are the
   * plugin's own tests: FairPluginOnResourceManagerTest.)
   */
  @Test
  void neitherManyNorHigherPriorityJobsKeepAUserAboveHerShareAndAJobAtItsMinimumKeepsIt() throws Exception {
    try (User carol = User.login("carol"); User dave = User.login("dave")) {
      List<SubmittedJob> jobs = new ArrayList<>();
      List<RpcConnection> connections = new ArrayList<>();
      try {
        SubmittedJob atMin = carol.submit(spec("carol-at-min", 4, 4, 4));
        jobs.add(atMin);
        SubmittedJob elastic = carol.submit(spec("carol-elastic", 4, 1, 4), 9);
        jobs.add(elastic);
        ApplicationReport elasticAm = carol.registered(elastic);
        assertEquals(9, elasticAm.getPriority().getPriority());
        ApplicationReport atMinAm = carol.registered(atMin);
        connections.add(control(atMinAm, atMin));
        connections.add(control(elasticAm, elastic));
        JobControl.Client atMinControl = new JobControl.Client(connections.get(0).protocol());
        JobControl.Client elasticControl = new JobControl.Client(connections.get(1).protocol());
        List<String> atMinWorkers = List.copyOf(Await.until("carol's job at its minimum training", atMinControl::status,
            s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getWorkers() == 4)
            .getContainers());
        Await.until("carol's elastic job training with 4 workers (she alone gets all 8 GPUs)", elasticControl::status,
            s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getWorkers() == 4);

        SubmittedJob daves = dave.submit(spec("dave", 3, 3, 3));
        jobs.add(daves);
        ApplicationReport daveAm = dave.registered(daves);
        connections.add(control(daveAm, daves));
        JobControl.Client daveControl = new JobControl.Client(connections.get(2).protocol());
        Await.until("dave's 3 workers training", daveControl::status,
            s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getWorkers() == 3);
        JobStatus shrunk = Await.until("carol's elastic job at its minimum", elasticControl::status,
            s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 1 && s.getContainersSize() == 1);
        assertEquals(1, shrunk.getTargetWorkers());

        JobStatus kept = atMinControl.status();
        assertEquals(JobState.RUNNING, kept.getState(), kept.toString());
        assertEquals(4, kept.getTargetWorkers());
        assertEquals(atMinWorkers, kept.getContainers(), "the job at its minimum lost no worker");
        for (JobStatus s : List.of(kept, shrunk)) {
          String d = s.isSetDiagnostics() ? s.getDiagnostics() : "";
          assertFalse(d.contains("failed") || d.contains("worker failures"), "a worker failed: " + d);
        }
      } finally {
        for (RpcConnection c : connections) {
          c.close();
        }
        for (SubmittedJob j : jobs) {
          carol.yarn().killApplication(j.appId());
        }
      }
    }
  }
}
