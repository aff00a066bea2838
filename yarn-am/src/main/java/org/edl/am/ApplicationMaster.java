package org.edl.am;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.job.AmAddressRecord;
import org.edl.job.ContainerLogging;
import org.edl.job.GpuIndexRecord;
import org.edl.job.HostPort;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.JobZooKeeperAcl;
import org.edl.job.ModelOutput;
import org.edl.job.ShippedConfiguration;
import org.edl.job.WorkerEnv;
import org.edl.job.rpc.RpcServer;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Main class of the AM container. It only wires the parts together: the job specification and
 * secret the client shipped, the YARN driver (mechanism), the worker fleet (decisions), and the
 * job-control endpoint; then it waits for the fleet's outcome and unregisters with it.
 */
public final class ApplicationMaster {
  private static final Logger LOG = LoggerFactory.getLogger(ApplicationMaster.class);
  private static final int HEARTBEAT_MS = 500;
  /** Under the job's output directory: one checkpoint directory per stop-resume change. */
  static final String CHECKPOINTS = "checkpoints";
  /** How long asking the leader for one container's leave may take, leader moves included. */
  private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(60);

  private ApplicationMaster() {}

  public static void main(String[] args) {
    ContainerLogging.ensureConfigured();
    int exit;
    try {
      JobOutcome outcome = run();
      LOG.info("Job {}: {}", outcome.succeeded() ? "SUCCEEDED" : "FAILED", outcome.diagnostics());
      exit = 0; // the final status went to the RM; a non-zero exit would only add a retry
    } catch (Throwable t) {
      LOG.error("ApplicationMaster failed", t);
      // YARN's diagnostics of a failed AM container quote its stderr, not its log.
      System.err.println("ApplicationMaster failed: " + t);
      exit = 1;
    }
    System.exit(exit);
  }

  /** What the submitter put in the AM's environment for every worker. */
  private static Map<String, String> workerSettings() {
    String sessionTimeout = System.getenv(WorkerEnv.ZK_SESSION_TIMEOUT_MS);
    return sessionTimeout == null ? Map.of() : Map.of(WorkerEnv.ZK_SESSION_TIMEOUT_MS, sessionTimeout);
  }

  static JobOutcome run() throws Exception {
    String containerId = requireEnv(Environment.CONTAINER_ID.name());
    String appId = ContainerId.fromString(containerId).getApplicationAttemptId()
        .getApplicationId().toString();
    String host = requireEnv(Environment.NM_HOST.name());
    String zkConnect = requireEnv(WorkerEnv.ZK_CONNECT);
    URI stagingDir = URI.create(requireEnv(StagingLayout.STAGING_DIR_ENV));
    Configuration conf = new YarnConfiguration(ShippedConfiguration.load(Paths.get("")));
    JobSpec spec;
    try (InputStream in = Files.newInputStream(Paths.get(StagingLayout.JOB_SPEC))) {
      spec = JobSpec.read(in);
    }
    var credentials = UserGroupInformation.getCurrentUser().getCredentials();
    JobSecret secret = ContainerCredentials.secretFrom(credentials);
    LOG.info("ApplicationMaster for {} ({} x {} workers, model {})", appId, spec.scale().workers(),
        spec.resources().gpusPerWorker() + " GPU", spec.training().model());

    ExecutorService mainThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "am-main"));
    YarnContainerDriver driver = new YarnContainerDriver(conf, YarnClientFactory.real(), mainThread,
        HEARTBEAT_MS);
    // ZooKeeper says where the leader is (scale-in, migration); the AM publishes its own address
    // and its workers' GPU indices there for a later attempt.
    // Only the job's own processes may change its nodes (JobZooKeeperAcl).
    CuratorFramework zk = JobZooKeeperAcl.of(appId, secret).applyTo(CuratorFrameworkFactory.builder())
        .connectString(zkConnect).retryPolicy(new ExponentialBackoffRetry(200, 10)).build();
    zk.start();
    LeaderWorkerRemoval removal = new LeaderWorkerRemoval(zk, appId, secret, LEAVE_TIMEOUT, mainThread);
    // A torchrun script has no EDL leader: its workers' containers are given back instead, and
    // what it writes is its own business.
    boolean torchrun = spec.script().torchrun();
    // Checked once every worker has exited after training: only a verified output is SUCCEEDED.
    OutputCheck output = torchrun ? OutputCheck.SCRIPTS_OWN
        : () -> ModelOutput.verify(conf, spec.output(), spec.training().steps());
    ReleasingRemoval givingBack = new ReleasingRemoval(mainThread);
    MeasuredThroughput measured = new MeasuredThroughput();
    ThroughputCurve curve = throughputCurve(spec, measured);
    ExecutorService evidence = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "am-exit-evidence");
      t.setDaemon(true);
      return t;
    });
    ExitEvidence exitEvidence = new ExitEvidence(zk, appId, evidence);
    GpuIndexRecord gpuRecord = new GpuIndexRecord(zk, appId);
    FleetJournal journal = FleetJournal.zooKeeper(zk, appId);
    WorkerFleet fleet = new WorkerFleet(driver, output, FleetSettings.of(
        new WorkerResource(spec.resources().memoryMb(), spec.resources().vcores(), spec.resources().gpusPerWorker()),
        spec.scale().workers(), spec.scale().minWorkers(), spec.scale().maxWorkers())
        .removingBy(torchrun ? givingBack : removal)
        .stoppingBy(torchrun ? JobStopper.UNSUPPORTED : removal, spec.output() + "/" + CHECKPOINTS)
        .replaceRemovedWorkers(spec.stragglers().replace())
        .toleratingWorkerFailures(spec.recovery().maxWorkerFailures())
        .restartingFrom(new CheckpointRestartSource(conf, spec.output() + "/" + CHECKPOINTS))
        .growing(!torchrun && (spec.scale().startsAtMinimum() || spec.growth().enabled())
            ? new GrowthPolicy(spec.scale().workers(), spec.scale().maxWorkers(), spec.growth(), curve,
                System::currentTimeMillis)
            : null)
        .reportingExitsTo(id -> {
          exitEvidence.exited(id);
          evidence.execute(() -> gpuRecord.forget(id));
        })
        .journaling(journal)
        .startingFrom(spec.checkpoints().resumeFrom())
        .build());
    givingBack.givingBackThrough(fleet::leaverGivenBack);
    JobControlService control = new JobControlService(appId, spec, mainThread, fleet,
        p -> {
          driver.reportProgress(fraction(p));
          measured.onProgress(p);
        }, new HdfsProfileStore(conf, spec.output(),
            "EDL profile of " + appId + ": " + spec.training().model() + ", backend " + spec.training().backend()),
        gpuRecord::read);
    try (zk; removal; TorchrunRendezvous rendezvous = torchrun
        ? TorchrunRendezvous.start(spec.script().python(), Paths.get("").toAbsolutePath(), appId, control::reportProgress,
            exited -> mainThread.execute(() -> fleet.onError(exited))) : null;
        RpcServer rpc = RpcServer.start("job-control", new JobControl.Processor<>(control),
        // The leader's reports and the users' edl commands: a few connections at a time.
        "0.0.0.0", 0, secret, RpcServer.HANDSHAKE_TIMEOUT, 32,
        (peer, cause) -> LOG.warn("Refused job-control connection from {}: {}", peer, cause.getMessage()));
        JobPage page = JobPage.start(control,
            () -> org.edl.worker.checkpoint.CheckpointCatalog.list(conf, new org.apache.hadoop.fs.Path(spec.output()), false),
            // The measured curve is the main thread's: read there, for the RM's Elastic-Tiresias mode.
            () -> mainThread.submit(() -> PublishedCurve.of(curve, spec.resources().gpusPerWorker(),
                spec.scale().maxWorkers())).get(5, TimeUnit.SECONDS),
            "0.0.0.0")) {
      LOG.info("Job page at {} (the application's tracking URL)", page.url(host));
      // Built while YARN allocates the first containers (a round trip of a second or more): the
      // staging directory's listing is the AM's first HDFS call, 0.6 s of loading the client here.
      CompletableFuture<YarnContainerDriver.LaunchContextFactory> workers = new CompletableFuture<>();
      Thread contexts = new Thread(() -> {
        try {
          var resources = StagingLayout.workerResources(stagingDir, spec.script(), conf);
          var tokens = ContainerCredentials.serialize(ContainerCredentials.withoutAmRmToken(credentials));
          workers.complete(torchrun
              ? new TorchrunLaunchContexts(resources, tokens, appId, spec.script(),
                  spec.script().processes(spec.training().backend(), spec.resources().gpusPerWorker()),
                  spec.scale().minWorkers(), spec.scale().maxWorkers(), new HostPort(host, rendezvous.port()))
              : new WorkerLaunchContexts(resources, ContainerClasspath.of(conf), appId, zkConnect,
                  host + ":" + rpc.port(), tokens, spec.resources().memoryMb(), workerSettings(),
                  WorkerJvmOptions.of(conf)));
        } catch (Throwable t) {
          workers.completeExceptionally(t);
        }
      }, "am-launch-contexts");
      contexts.setDaemon(true);
      contexts.start();
      AmAddressRecord.publish(zk, appId, new HostPort(host, rpc.port()));
      YarnContainerDriver.LaunchContextFactory recorded = (c, launch) -> {
        try {
          gpuRecord.write(c.id(), launch.gpuIndices());
        } catch (Exception e) {
          LOG.warn("Could not record the GPUs {} of {}: a later AM attempt will not know them",
              launch.gpuIndices(), c.id(), e);
        }
        return workers.join().create(c, launch);
      };
      // Registration and adoption in one main-thread task: YARN's first answers (a previous
      // attempt's container that completed meanwhile) queue behind it and find the fleet adopted.
      mainThread.submit(() -> {
        var registered = driver.start(fleet, recorded, host, rpc.port(), page.url(host));
        List<Container> previous = registered.getContainersFromPreviousAttempts();
        if (torchrun) {
          // Their agents knew the store that died with the previous attempt: new ones start the
          // job again, from the script's own checkpoint.
          previous.forEach(c -> driver.release(c.getId().toString()));
          previous = List.of();
        }
        fleet.adopt(previousWorkers(previous, gpuRecord), journal.last());
        return null;
      }).get();
      // After the workers are asked for: starting Hadoop's metrics system takes most of a second.
      JobMetricsSource.register(control, appId);
      try {
        workers.get(); // a staging directory that cannot be read ends the attempt here, as before
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
      JobOutcome outcome = fleet.outcome().get();
      // The last progress goes into the final diagnostics: the client reads them from the RM
      // after this endpoint is gone.
      return mainThread.submit(() -> {
        JobOutcome reported = new JobOutcome(outcome.succeeded(),
            outcome.diagnostics() + control.progressSummary());
        driver.unregister(reported);
        JobCleanup.zooKeeper(zk, appId);
        JobCleanup.stagingDirectory(stagingDir, conf);
        return reported;
      }).get(30, TimeUnit.SECONDS);
    } finally {
      driver.stop();
      mainThread.shutdownNow();
    }
  }

  /**
   * The containers YARN kept from earlier attempts (the job is submitted with
   * keep-containers-across-application-attempts), with the GPU indices each was launched with.
   * The AM's own container is not among them: it belongs to the attempt.
   */
  private static Map<WorkerContainer, List<Integer>> previousWorkers(List<Container> previous,
      GpuIndexRecord gpuRecord) throws Exception {
    Map<WorkerContainer, List<Integer>> running = new LinkedHashMap<>();
    for (Container c : previous) {
      String id = c.getId().toString();
      Optional<List<Integer>> indices = gpuRecord.read(id);
      if (indices.isEmpty()) {
        LOG.warn("No GPU indices recorded for {}: its devices may be handed out again", id);
      }
      running.put(new WorkerContainer(id, c.getNodeId().getHost()), indices.orElse(List.of()));
    }
    if (!running.isEmpty()) {
      LOG.info("Attempt {} adopts {} running workers: {}", ContainerId.fromString(
          System.getenv(Environment.CONTAINER_ID.name())).getApplicationAttemptId().getAttemptId(),
          running.size(), running.keySet());
    }
    return running;
  }

  /** An emulated job's measured profile; any other job's throughput as measured at each size it ran. */
  private static ThroughputCurve throughputCurve(JobSpec spec, MeasuredThroughput measured) throws IOException {
    if (!"emulated".equals(spec.training().backend())) {
      return measured;
    }
    return ProfiledThroughput.forJob(spec);
  }

  private static float fraction(JobProgress p) {
    return p.getTotalSteps() <= 0 ? 0f : (float) p.getStep() / p.getTotalSteps();
  }

  private static String requireEnv(String name) {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalStateException("environment variable " + name + " is not set");
    }
    return v;
  }
}
