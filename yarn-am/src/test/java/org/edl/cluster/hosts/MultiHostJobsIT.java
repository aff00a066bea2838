package org.edl.cluster.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.edl.testing.Await;
import org.edl.testing.HadoopClient;
import org.edl.testing.UserShell;
import org.edl.testing.UserShell.Running;
import org.edl.thrift.JobStatus;
import org.edl.thrift.WorkerPlacement;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.runtime.PeriodicCheckpoints;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elastic jobs on the multi-host cluster as their user runs them, with {@code yarn jar} and the
 * shaded jar and {@code HADOOP_CONF_DIR} set: every worker on a host of its own (one GPU per
 * host), the ring between hosts over TCP. A scale-out, a migration that moves the leader to
 * another host, a leader killed; whole hosts lost: a follower's mid-training, the leader's while it
 * writes a checkpoint, the AM's, and a newcomer's while it joins. Each job must end SUCCEEDED with
 * its model, every step's samples counted once, and exactly the failures it suffered counted.
 * The master daemons and the ZooKeeper servers have hosts of their own (a host lost is a worker's only);
 * NodeManagers expire after 20 s, so YARN too reports a lost host's containers while the job
 * still runs, and they must not be counted twice. Logs stay under {@code target/it/multihost-jobs}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiHostJobsIT {
  private static final Logger LOG = LoggerFactory.getLogger(MultiHostJobsIT.class);
  private static final String YARN_JAR = "yarn jar yarn-am/target/dist/edl-am-0.1.0-SNAPSHOT.jar ";
  private static final Pattern APP_ID = Pattern.compile("application_\\d+_\\d+");
  private static final int BATCH = 256;
  private static final Duration JOB_TIMEOUT = FollowedJob.TIMEOUT;

  private static MultiHostCluster cluster;
  private static Configuration conf;
  private static YarnClient yarn;
  private static UserShell user;
  /** Hosts the tests lost: no job goes there again. */
  private static final Set<String> lost = new HashSet<>();

  @BeforeAll
  static void start() throws Exception {
    var why = HostNetwork.unavailable();
    assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
    Path root = Path.of(System.getProperty("edl.home")).toAbsolutePath();
    Path dir = Path.of(System.getProperty("edl.it.dir")).resolve("multihost-jobs").toAbsolutePath();
    org.apache.hadoop.fs.FileUtil.fullyDelete(dir.toFile());
    cluster = MultiHostCluster.builder().hosts(8).masterHosts(3).gpusPerHost(1).hostMemoryMb(4096)
        .yarnSetting("yarn.nm.liveness-monitor.expiry-interval-ms", "20000")
        // Every test but the first loses a host, four of the five with DataNodes by the last one:
        // the NameNode must have declared the lost DataNodes dead (2 x 10 s + 10 heartbeats of
        // 3 s) before the last job writes its model, or its stale-node avoidance (which stops
        // above half the DataNodes stale) no longer keeps new blocks off them.
        .hdfsSetting("dfs.namenode.heartbeat.recheck-interval", "10000")
        // Container logs stay on their hosts (hosts/<host>/nm-logs), where a failed run leaves them.
        .yarnSetting("yarn.log-aggregation-enable", "false").dir(dir.resolve("cluster"))
        .shippedConf(root.resolve("conf")).build().start();
    conf = cluster.configuration();
    ResourceUtils.resetResourceTypes(conf);
    yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
    Path hadoop = HadoopClient.install(dir.resolve("hadoop-client")).getParent();
    user = new UserShell(root, dir.resolve("commands")).with("HADOOP_CONF_DIR", cluster.confDir().toString())
        .with("PATH", hadoop + ":" + System.getenv("PATH"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (yarn != null) {
      yarn.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void aJobScalesOutMovesItsLeaderToAnotherHostAndOutlivesItsKill() throws Exception {
    FollowedJob job = submit("move", "--workers 2 --min-workers 2 --max-workers 3 --steps 2000");
    job.await("two workers training", s -> s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 5);

    user.run(YARN_JAR + "scale-out " + job.id() + " -n 1", Duration.ofMinutes(1)).assertSucceeded();
    JobStatus three = job.await("three workers training on three hosts",
        s -> s.getProgress().getWorkers() == 3 && s.getPlacementsSize() == 3);
    assertEquals(3, hostsOf(three).size(), "one worker per host: " + three.getPlacements());

    String leader = job.leader();
    String from = hostOf(three, leader);
    String to = cluster.workerHosts().stream().map(SimulatedHost::address)
        .filter(h -> !hostsOf(three).contains(h) && !lost.contains(h)).findFirst().orElseThrow();
    long versionBefore = three.getProgress().getTopologyVersion();
    user.run(YARN_JAR + "migrate " + job.id() + " --from " + from + " --to " + to, Duration.ofMinutes(1))
        .assertSucceeded();
    JobStatus moved = job.await("the leader's worker replaced by one on " + to,
        s -> !s.getContainers().contains(leader) && s.getProgress().getWorkers() == 3
            && hostsOf(s).contains(to) && !hostsOf(s).contains(from));
    assertEquals(versionBefore + 1, moved.getProgress().getTopologyVersion(),
        "one topology switch moved the leader: " + moved.getProgress());
    assertTrue(moved.getProgress().getLeaderEpoch() >= 2, "the leader handed over: " + moved.getProgress());
    assertEquals(0, moved.getProgress().getFailedSize(), "nobody failed in the migration: " + moved.getProgress());

    String successor = job.leader();
    yarn.signalToContainer(ContainerId.fromString(successor), SignalContainerCommand.FORCEFUL_SHUTDOWN);
    job.awaitSucceeded(1);
  }

  @Test
  @Order(2)
  void aFollowersHostLostMidTrainingCostsOneWorkerAndTheJobGoesOn() throws Exception {
    FollowedJob job = submit("host-loss", "--workers 3 --min-workers 2 --max-workers 3 --steps 1500 --sync-timeout-ms 4000");
    JobStatus training = job.await("three workers training",
        s -> s.getProgress().getWorkers() == 3 && s.getProgress().getStep() >= 20);
    String leader = job.leader();
    String amHost = job.amHost();
    WorkerPlacement victim = training.getPlacements().stream()
        .filter(p -> !p.getContainer().equals(leader) && !p.getHost().equals(amHost)).findFirst()
        .orElseThrow(() -> new AssertionError("no follower apart from the AM's host: " + training.getPlacements()));

    long cut = System.nanoTime();
    lose(victim.getHost());
    JobStatus recovered = job.awaitRingWithout(victim.getContainer(), 2);
    LOG.info("A ring without {} {} ms after its host {} was cut: {}", victim.getContainer(),
        (System.nanoTime() - cut) / 1_000_000, victim.getHost(), recovered.getProgress());
    assertEquals(1, recovered.getProgress().getLeaderEpoch(), "the leader stayed: " + recovered.getProgress());
    job.awaitSucceeded(1);
  }

  @Test
  @Order(3)
  void theLeadersHostLostMidCheckpointWriteIsSucceededAfterItsSessionAndNoCheckpointIsLost() throws Exception {
    FollowedJob job = submit("leader-host-loss", "--workers 2 --min-workers 1 --max-workers 2 --steps 2500");
    JobStatus training = job.await("two workers training",
        s -> s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 20);
    // The AM's own host is another case (below): no worker there.
    moveWorkersOffTheAmsHost(job, training);
    String leader = job.leader();
    JobStatus before = job.status();
    String leaderHost = hostOf(before, leader);

    // The leader writes each checkpoint, its host's DataNode the first replica of every block: the
    // cut comes once one checkpoint is complete, while the leader is writing the next.
    org.apache.hadoop.fs.Path checkpoints = new org.apache.hadoop.fs.Path(PeriodicCheckpoints.directoryUnder(job.output()));
    List<String> complete;
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      complete = Await.until("a checkpoint complete and the next being written", () -> fs.exists(checkpoints)
          ? List.of(fs.listStatus(checkpoints)) : List.<org.apache.hadoop.fs.FileStatus>of(),
          l -> l.stream().anyMatch(f -> isTemporary(f.getPath())) && l.stream().anyMatch(f -> !isTemporary(f.getPath())),
          JOB_TIMEOUT, Duration.ofMillis(20))
          .stream().map(f -> f.getPath()).filter(f -> !isTemporary(f)).map(Object::toString).sorted().toList();
    }
    long cut = System.nanoTime();
    lose(leaderHost);
    JobStatus recovered = job.awaitRingWithout(leader, 1);
    LOG.info("A ring without the leader {} {} ms after its host {} was cut mid-write: {}", leader,
        (System.nanoTime() - cut) / 1_000_000, leaderHost, recovered.getProgress());
    assertTrue(recovered.getProgress().getLeaderEpoch() > before.getProgress().getLeaderEpoch(),
        "a successor leads: " + recovered.getProgress());
    // The newest complete checkpoint lost a replica with the host, never the checkpoint.
    String newest = complete.get(complete.size() - 1);
    Checkpoint.read(readerConf(), newest).verify();
    job.awaitSucceeded(1);
    try (FileSystem fs = FileSystem.newInstance(readerConf())) {
      List<org.apache.hadoop.fs.Path> left = java.util.Arrays.stream(fs.listStatus(checkpoints))
          .map(org.apache.hadoop.fs.FileStatus::getPath).toList();
      assertTrue(left.stream().noneMatch(MultiHostJobsIT::isTemporary), "the write the cut broke was cleared: " + left);
      assertTrue(left.stream().anyMatch(c -> c.toString().compareTo(newest) > 0), "the successor wrote on: " + left);
    }
  }

  @Test
  @Order(4)
  void theAmsHostLostMidTrainingIsFollowedByAnAttemptElsewhereThatAdoptsTheWorkers() throws Exception {
    // Long enough to outlast the failover (about 60 s) with steps as fast as this machine gives them.
    FollowedJob job = submit("am-host-loss", "--workers 2 --min-workers 1 --max-workers 2 --steps 6000");
    JobStatus training = job.await("two workers training",
        s -> s.getProgress().getWorkers() == 2 && s.getProgress().getStep() >= 20);
    // A worker lost with the AM is another case (above): no worker there.
    String amHost = job.amHost();
    moveWorkersOffTheAmsHost(job, training);
    List<String> workers = job.status().getContainers();

    long cut = System.nanoTime();
    lose(amHost);
    ApplicationReport second = Await.until("a second AM attempt", () -> yarn.getApplicationReport(
        ApplicationId.fromString(job.id())), r -> r.getCurrentApplicationAttemptId().getAttemptId() >= 2
            && r.getRpcPort() > 0 && !r.getHost().equals(amHost), JOB_TIMEOUT, Duration.ofSeconds(1));
    job.disconnect();
    JobStatus adopted = job.await("the second attempt's status", s -> true);
    LOG.info("The AM's next attempt answered on {} {} ms after its host {} was cut: {}", second.getHost(),
        (System.nanoTime() - cut) / 1_000_000, amHost, adopted);
    assertEquals(Set.copyOf(workers), Set.copyOf(adopted.getContainers()), "the new attempt adopted the workers");
    job.awaitSucceeded(0);
  }

  @Test
  @Order(5)
  void aNewcomersHostLostWhileItJoinsCostsOneWorkerAndTheRingGoesOnWithoutIt() throws Exception {
    FollowedJob job = submit("join-host-loss", "--workers 1 --min-workers 1 --max-workers 2 --steps 2500 --sync-timeout-ms 4000");
    JobStatus training;
    training = job.await("one worker training",
        s -> s.getProgress().getWorkers() == 1 && s.getProgress().getStep() >= 20);
    // The first worker takes the AM's host's one GPU, so that the newcomer goes to another host.
    String amHost = job.amHost();
    String at = hostOf(training, training.getPlacements().get(0).getContainer());
    if (!at.equals(amHost)) {
      training = oneWorkerOn(job, amHost);
    }
    String first = training.getPlacements().get(0).getContainer();
    Set<String> earlier = containersLogged(job.id());
    earlier.add(first);
    user.run(YARN_JAR + "scale-out " + job.id() + " -n 1", Duration.ofMinutes(1)).assertSucceeded();
    // Cut once it said ready: the leader then schedules the switch that takes it in at the end of
    // a step, some 0.4 s later here. Its log is read on its host directly: found through the AM's
    // status (polled every 250 ms), a run cut it 1.4 s after it was ready, after the switch.
    ReadyNewcomer newcomer = Await.until("a newcomer ready to join", () -> readyNewcomer(job.id(), earlier),
        java.util.Objects::nonNull, JOB_TIMEOUT, Duration.ofMillis(10));
    long cut = System.nanoTime();
    lose(newcomer.host());
    // Whether the cut came before the switch or after it, the newcomer ends up declared failed.
    JobStatus alone = Await.until("the first worker training alone", job::status, s -> s.isSetProgress()
        && s.getProgress().getMembers().equals(List.of(first)) && s.getProgress().isSetFailed()
        && s.getProgress().getFailed().contains(newcomer.container()), JOB_TIMEOUT, Duration.ofMillis(100));
    long stepAfter = alone.getProgress().getStep();
    // Whatever the AM's state: it may be SCALING, waiting for a replacement no free host can take.
    JobStatus goesOn = Await.until("training on after the cut", job::status, s -> s.isSetProgress()
        && s.getProgress().getStep() > stepAfter + 20, JOB_TIMEOUT, Duration.ofMillis(250));
    String joined = java.nio.file.Files.readString(newcomer.log()).contains("Joined topology") ? "after" : "before";
    LOG.info("Training without the newcomer {} {} ms after its host {} was cut while it joined ({} its log said it"
        + " joined): {}", newcomer.container(), (System.nanoTime() - cut) / 1_000_000, newcomer.host(), joined,
        goesOn.getProgress());
    assertTrue(goesOn.getProgress().getTopologyVersion() >= 2, "what the ring went through: " + goesOn.getProgress());
    job.awaitSucceeded(1);
  }

  // ------------------------------------------------------------------ the job as its user sees it

  /** {@code yarn jar ... submit} in a terminal of its own, following the job to its end. */
  private static FollowedJob submit(String name, String sizeAndSteps) throws Exception {
    String output = "/user/edl/multihost/" + name;
    Running client = user.start(YARN_JAR + "submit --name " + name + " --model mlp --grow off --straggler-factor off"
        + " --data synthetic:samples=8192,features=256,classes=4,seed=3 --batch-size " + BATCH + " --hidden 512"
        + " --gpus-per-worker 1 --worker-memory 512 --checkpoint-every-batches 200 --output " + output + " "
        + sizeAndSteps);
    String printed = client.awaitOutput(APP_ID.asPredicate(), Duration.ofMinutes(2), "the application id");
    Matcher m = APP_ID.matcher(printed);
    assertTrue(m.find());
    FollowedJob job = new FollowedJob(m.group(), client, output,
        Long.parseLong(sizeAndSteps.replaceAll(".*--steps (\\d+).*", "$1")), BATCH, conf, yarn, cluster.zooKeeperConnect());
    Await.until("the AM of " + job.id() + " to take calls", () -> yarn.getApplicationReport(ApplicationId.fromString(job.id())),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0, Duration.ofMinutes(3),
        Duration.ofMillis(500));
    return job;
  }

  /**
   * A one-worker {@code job} moved onto {@code host}, as its user would: a job's only worker cannot
   * migrate (it sends the newcomer the model), so it grows to two, migrates one onto the host where
   * neither landed there, and lets the other go.
   */
  private static JobStatus oneWorkerOn(FollowedJob job, String host) throws Exception {
    user.run(YARN_JAR + "scale-out " + job.id() + " -n 1", Duration.ofMinutes(1)).assertSucceeded();
    JobStatus two = job.await("two workers", s -> s.getProgress().getWorkers() == 2 && s.getPlacementsSize() == 2);
    if (!hostsOf(two).contains(host)) {
      String from = hostOf(two, two.getContainers().get(0));
      user.run(YARN_JAR + "migrate " + job.id() + " --from " + from + " --to " + host, Duration.ofMinutes(1))
          .assertSucceeded();
      two = job.await("a worker on " + host, s -> s.getProgress().getWorkers() == 2 && s.getPlacementsSize() == 2
          && hostsOf(s).contains(host));
    }
    JobStatus placed = two;
    String away = placed.getPlacements().stream().filter(p -> !p.getHost().equals(host))
        .map(WorkerPlacement::getContainer).findFirst().orElseThrow();
    user.run(YARN_JAR + "scale-in " + job.id() + " --container " + away, Duration.ofMinutes(1)).assertSucceeded();
    return job.await("the one worker on " + host, s -> s.getProgress().getWorkers() == 1
        && s.getPlacementsSize() == 1 && hostsOf(s).equals(Set.of(host)));
  }

  /** With {@code yarn jar ... migrate}, when a worker of {@code job} runs on its AM's host. */
  private static void moveWorkersOffTheAmsHost(FollowedJob job, JobStatus training) throws Exception {
    String amHost = job.amHost();
    if (!hostsOf(training).contains(amHost)) {
      return;
    }
    String free = cluster.workerHosts().stream().map(SimulatedHost::address)
        .filter(h -> !hostsOf(training).contains(h) && !lost.contains(h)).findFirst().orElseThrow();
    user.run(YARN_JAR + "migrate " + job.id() + " --from " + amHost + " --to " + free, Duration.ofMinutes(1))
        .assertSucceeded();
    int workers = training.getProgress().getWorkers();
    job.await("no worker on the AM's host", s -> s.getProgress().getWorkers() == workers
        && !hostsOf(s).contains(amHost) && s.getPlacementsSize() == workers);
  }

  /** A newcomer's container, its host and its log, once the log says it is ready to join. */
  private record ReadyNewcomer(String container, String host, Path log) {}

  /** The container of {@code app} other than {@code first} whose log on its host says it is ready. */
  private static ReadyNewcomer readyNewcomer(String app, Set<String> earlier) throws java.io.IOException {
    for (SimulatedHost h : cluster.workerHosts()) {
      for (Path c : containerLogDirs(app, h)) {
        Path log = c.resolve("stdout");
        if (!earlier.contains(c.getFileName().toString()) && java.nio.file.Files.exists(log)
            && java.nio.file.Files.readString(log).contains("Ready to join topology")) {
          return new ReadyNewcomer(c.getFileName().toString(), h.address(), log);
        }
      }
    }
    return null;
  }

  /** The containers of {@code app} that have logged on any host so far (the AM's, and earlier newcomers'). */
  private static Set<String> containersLogged(String app) throws java.io.IOException {
    Set<String> names = new HashSet<>();
    for (SimulatedHost h : cluster.workerHosts()) {
      containerLogDirs(app, h).forEach(c -> names.add(c.getFileName().toString()));
    }
    return names;
  }

  private static List<Path> containerLogDirs(String app, SimulatedHost h) throws java.io.IOException {
    Path logs = cluster.nodeManagerLogs(h).resolve(app);
    if (lost.contains(h.address()) || !java.nio.file.Files.isDirectory(logs)) {
      return List.of();
    }
    try (var containers = java.nio.file.Files.list(logs)) {
      return containers.toList();
    }
  }

  private static boolean isTemporary(org.apache.hadoop.fs.Path p) {
    return p.getName().endsWith(".tmp");
  }

  /**
   * The test's own HDFS client after a host loss: a DataNode whose host is gone takes its connect
   * timeout to give up on, and this one waits 5 s, not the default 60, before the next replica.
   */
  private static Configuration readerConf() {
    Configuration c = new Configuration(conf);
    c.setInt("dfs.client.socket-timeout", 5_000);
    return c;
  }

  private static void lose(String host) throws Exception {
    lost.add(host);
    cluster.loseHost(cluster.host(host));
  }

  private static Set<String> hostsOf(JobStatus s) {
    Set<String> hosts = new HashSet<>();
    s.getPlacements().forEach(p -> hosts.add(p.getHost()));
    return hosts;
  }

  private static String hostOf(JobStatus s, String container) {
    return s.getPlacements().stream().filter(p -> p.getContainer().equals(container)).map(WorkerPlacement::getHost)
        .findFirst().orElseThrow(() -> new AssertionError(container + " not among " + s.getPlacements()));
  }
}
