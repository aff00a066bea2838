package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.WorkerEnv;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.thrift.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fair GPU sharing seen from real EDL jobs: the embedded cluster's ResourceManager runs the
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

  @Test
  void anElasticJobGivesUpItsExtrasAtAScheduledStepWhenAnotherUserArrives() throws Exception {
    try (User bob = User.login("bob"); User alice = User.login("alice")) {
      SubmittedJob bobs = bob.submit(spec("bob-elastic", 8, 2, 8));
      ApplicationReport bobAm = bob.registered(bobs);
      assertTrue(bobAm.getApplicationTags().contains("edl-min-gpus=2"), bobAm.getApplicationTags().toString());
      assertEquals("root.users.bob", bobAm.getQueue());
      SubmittedJob alices = null;
      try (RpcConnection bc = control(bobAm, bobs)) {
        JobControl.Client bobControl = new JobControl.Client(bc.protocol());
        JobStatus eight = Await.until("bob's 8 workers training on all 8 GPUs", bobControl::status,
            s -> s.getState() == JobState.RUNNING && s.isSetProgress()
                && s.getProgress().getWorkers() == 8 && s.getProgress().getStep() >= 1);
        List<String> first = List.copyOf(eight.getContainers());

        alices = alice.submit(spec("alice", 4, 4, 4));
        ApplicationReport aliceAm = alice.registered(alices);
        assertEquals("root.users.alice", aliceAm.getQueue());

        // Bob's status as it changes: the step never goes back, the target drops while the warned
        // workers still run (the warning came before any kill), and each departure is a leave.
        long[] lastStep = {eight.getProgress().getStep()};
        Set<String> events = new HashSet<>();
        boolean[] warnedBeforeAnyEnded = {false};
        JobStatus four = Await.until("bob's job to shrink to 4 workers", () -> {
          JobStatus s = bobControl.status();
          long step = s.getProgress().getStep();
          assertTrue(step >= lastStep[0], "bob's step went back from " + lastStep[0] + " to " + step
              + " (status now: " + s + "; earlier events: " + events + ")");
          lastStep[0] = step;
          if (s.getTargetWorkers() == 4 && s.getContainersSize() == 8) {
            warnedBeforeAnyEnded[0] = true;
          }
          if (s.isSetDiagnostics()) {
            events.add(s.getDiagnostics());
          }
          return s;
        }, s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 4 && s.getContainersSize() == 4);
        assertEquals(4, four.getTargetWorkers(), "nothing is requested to replace a preempted worker");
        assertTrue(first.containsAll(four.getContainers()), "no new container: " + four.getContainers());
        for (String e : events) {
          assertFalse(e.contains("failed") || e.contains("worker failures"), "a worker failed in bob's job: " + e);
          assertTrue(e.isEmpty() || e.contains("left the job (SCALE_IN, exit status " + WorkerEnv.EXIT_LEFT + ")")
              || e.contains("left the job (SCALE_IN, exit status " + ContainerExitStatus.PREEMPTED + ")"),
              "each departure is the scale-in completing: " + e);
        }
        // Polling may miss the short window; the leaves themselves prove the warning came first.
        assertTrue(warnedBeforeAnyEnded[0] || events.stream().anyMatch(e -> e.contains("left the job")), events.toString());

        try (RpcConnection ac = control(aliceAm, alices)) {
          JobControl.Client aliceControl = new JobControl.Client(ac.protocol());
          Await.until("alice's 4 workers training", aliceControl::status,
              s -> s.getState() == JobState.RUNNING && s.isSetProgress() && s.getProgress().getWorkers() == 4);
        }
        long stepAtFour = four.getProgress().getStep();
        JobStatus later = Await.until("bob's training to go on with 4", bobControl::status,
            s -> s.getProgress().getStep() > stepAtFour + 3);
        assertEquals(JobState.RUNNING, later.getState());
        assertEquals(4, later.getProgress().getWorkers());
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
