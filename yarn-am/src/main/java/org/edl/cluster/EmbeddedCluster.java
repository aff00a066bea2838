package org.edl.cluster;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Hadoop cluster in this JVM: a ZooKeeper server, HDFS (one NameNode, one DataNode) and
 * YARN (one ResourceManager running the FairScheduler with DRF, and NodeManagers that advertise
 * a number of fake {@code yarn.io/gpu}). After {@link #start()} it writes a client configuration
 * directory ({@link #confDir()}), so clients pointed at it with {@code HADOOP_CONF_DIR} reach it
 * exactly as they would a real cluster. The demo, {@code bin/edl cluster} and the tests use it.
 *
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(2).gpusPerNode(4).build().start()) {
 *   YarnClient yarn = YarnClient.createYarnClient();
 *   yarn.init(cluster.configuration());
 *   ...
 * }
 * }</pre>
 */
public final class EmbeddedCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);
  private static final Duration NODES_TIMEOUT = Duration.ofSeconds(60);
  private static final String ZK_ADMIN_SERVER = "zookeeper.admin.enableServer";
  /** A directory to keep the container logs in when the cluster closes (tests set it); unset: none kept. */
  public static final String KEEP_LOGS = "edl.cluster.keep-logs";

  /**
   * The web UIs' Jersey and Guice log every resource they register at INFO through
   * java.util.logging, which log4j settings do not reach. Held here because JUL keeps its
   * loggers weakly, and a collected logger forgets its level.
   */
  private static final java.util.logging.Logger[] QUIET_JUL_LOGGERS = {
      java.util.logging.Logger.getLogger("com.sun.jersey"),
      java.util.logging.Logger.getLogger("com.google.inject"),
  };

  private enum State { NEW, STARTING, RUNNING, CLOSED }

  private final ClusterSize size;
  private final Path requestedBaseDir;
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  /** Held while services start or stop, so a close() during start() waits and then stops all. */
  private final Object lifecycle = new Object();
  private final ServiceStops stops = new ServiceStops();

  private volatile Path baseDir;
  private volatile boolean ownsBaseDir;
  private volatile String zkConnectString;
  private volatile URI hdfsUri;
  private volatile Configuration clientConfiguration;
  private volatile Path confDir;

  /** The scheduler plugin's preemption grace period; null: its default. */
  private final Long preemptionGraceMs;
  /** The Elastic-Tiresias queue bounds for yarn-site.xml; null: the plugin's default. */
  private final String tiresiasQueueLimits;
  private final FairSchedulerAllocationFile.Mode mode;
  private final boolean kerberos;
  /** HDFS delegation tokens' life unless renewed, with Kerberos; null: HDFS's default. */
  private final Long tokenRenewIntervalMs;
  private volatile EmbeddedKdc kdc;

  EmbeddedCluster(ClusterSize size, Path baseDir, Long preemptionGraceMs,
      FairSchedulerAllocationFile.Mode mode, String tiresiasQueueLimits, boolean kerberos, Long tokenRenewIntervalMs) {
    this.size = size;
    this.requestedBaseDir = baseDir;
    this.preemptionGraceMs = preemptionGraceMs;
    this.tiresiasQueueLimits = tiresiasQueueLimits;
    this.mode = mode;
    this.kerberos = kerberos;
    this.tokenRenewIntervalMs = tokenRenewIntervalMs;
  }

  public static EmbeddedClusterBuilder builder() {
    return new EmbeddedClusterBuilder();
  }

  /**
   * Starts ZooKeeper, HDFS and YARN, waits until every NodeManager has registered with the
   * scheduler, and writes the client configuration directory. If anything fails, what had
   * started is stopped again before the exception is thrown.
   *
   * @return this cluster, for try-with-resources
   * @throws IllegalStateException if started before, or closed while starting
   */
  public EmbeddedCluster start() throws IOException {
    if (!state.compareAndSet(State.NEW, State.STARTING)) {
      throw new IllegalStateException("the embedded cluster can be started once; it is " + state.get());
    }
    long began = System.nanoTime();
    synchronized (lifecycle) {
      try {
        startServices();
      } catch (IOException | RuntimeException | Error e) {
        state.set(State.CLOSED);
        stopServices();
        throw e;
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        state.set(State.CLOSED);
        stopServices();
        throw new IOException("the embedded cluster failed to start: " + e.getMessage(), e);
      }
    }
    if (!state.compareAndSet(State.STARTING, State.RUNNING)) {
      throw new IllegalStateException("the embedded cluster was closed while it was starting");
    }
    LOG.info("Embedded cluster up in {} ms: {} node(s) x {} yarn.io/gpu; client configuration in {}",
        (System.nanoTime() - began) / 1_000_000, size.nodes(), size.gpusPerNode(), confDir);
    return this;
  }

  /** Stops YARN, HDFS and ZooKeeper, and removes the base directory if this cluster made it. */
  @Override
  public void close() {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED || previous == State.NEW) {
      return;
    }
    synchronized (lifecycle) {
      stopServices();
    }
  }

  /**
   * A client configuration for this cluster: Hadoop's defaults plus the files in
   * {@link #confDir()}, as {@code new YarnConfiguration()} with {@code HADOOP_CONF_DIR} on the
   * class path would read. A fresh copy each call.
   */
  public Configuration configuration() {
    return new YarnConfiguration(started(clientConfiguration));
  }

  /** The client configuration directory: point {@code HADOOP_CONF_DIR} here. */
  public Path confDir() {
    return started(confDir);
  }

  public String zkConnectString() {
    return started(zkConnectString);
  }

  public URI hdfsUri() {
    return started(hdfsUri);
  }

  /** The ResourceManager's web UI, {@code http://host:port}. */
  public String resourceManagerWebUrl() {
    return "http://" + WebAppUtils.getRMWebAppURLWithoutScheme(started(clientConfiguration));
  }

  /** The directory every service keeps its data and logs under. */
  public Path baseDir() {
    return started(baseDir);
  }

  /** The cluster's KDC, its realm and keytabs, when it was built with {@link EmbeddedClusterBuilder#kerberos(boolean)}. */
  public java.util.Optional<EmbeddedKdc> kerberos() {
    started(clientConfiguration);
    return java.util.Optional.ofNullable(kdc);
  }

  public int nodes() {
    return size.nodes();
  }

  public int gpusPerNode() {
    return size.gpusPerNode();
  }

  public ClusterSize size() {
    return size;
  }

  private <T> T started(T value) {
    if (value == null) {
      throw new IllegalStateException("the embedded cluster has not been started");
    }
    return value;
  }

  private void startServices() throws Exception {
    for (java.util.logging.Logger logger : QUIET_JUL_LOGGERS) {
      logger.setLevel(java.util.logging.Level.SEVERE);
    }
    if (requestedBaseDir != null) {
      baseDir = Files.createDirectories(requestedBaseDir.toAbsolutePath());
    } else {
      baseDir = Files.createTempDirectory("edl-cluster-").toAbsolutePath();
      ownsBaseDir = true;
    }
    LOG.info("Starting the embedded cluster in {}: {} node(s) x {} yarn.io/gpu, {} MB and {} vcores each",
        baseDir, size.nodes(), size.gpusPerNode(), size.nodeMemoryMb(), size.nodeVcores());

    zkConnectString = startZooKeeper(baseDir.resolve("zookeeper"));
    Configuration base = new Configuration();
    if (kerberos) {
      base = startKdc(baseDir.resolve("kdc"), base);
    }
    MiniDFSCluster hdfs = startHdfs(baseDir.resolve("hdfs"), base);
    hdfsUri = hdfs.getURI();
    if (kerberos) {
      SecureHdfsLayout.prepare(hdfsUri, hdfs.getConfiguration(0), System.getProperty("user.name"));
    }
    MiniYARNCluster yarn = startYarn(baseDir.resolve("yarn"), base);

    confDir = ClientConfDirectory.write(baseDir.resolve("conf"), yarn.getConfig(),
        hdfs.getConfiguration(0), hdfsUri.toString(), zkConnectString);
    YarnConfiguration client = new YarnConfiguration();
    for (String file : ClientConfDirectory.FILES) {
      client.addResource(new org.apache.hadoop.fs.Path(confDir.resolve(file).toUri()));
    }
    clientConfiguration = client;
    LOG.info("ResourceManager at {}, web UI {}", client.get(YarnConfiguration.RM_ADDRESS), resourceManagerWebUrl());
  }

  private String startZooKeeper(Path dataDir) throws Exception {
    // ZooKeeper would also start its admin web server on port 8080, which several clusters on
    // one machine cannot share and nobody here uses.
    if (System.getProperty(ZK_ADMIN_SERVER) == null) {
      System.setProperty(ZK_ADMIN_SERVER, "false");
    }
    deleteRecursively(dataDir); // a fresh ensemble: stale sessions and /edl nodes would confuse jobs
    Files.createDirectories(dataDir);
    InstanceSpec spec = new InstanceSpec(dataDir.toFile(), -1, -1, -1, false, -1);
    TestingServer zookeeper = new TestingServer(spec, true);
    stops.add("ZooKeeper", zookeeper::close);
    LOG.info("ZooKeeper started at {}", zookeeper.getConnectString());
    return zookeeper.getConnectString();
  }

  /**
   * Starts the KDC and turns Kerberos on for this JVM: the services it starts next log in from
   * the KDC's service keytab.
   *
   * @return {@code base} with the secure settings
   */
  private Configuration startKdc(Path dir, Configuration base) throws Exception {
    deleteRecursively(dir);
    EmbeddedKdc started = EmbeddedKdc.start(dir, System.getProperty("user.name"));
    stops.add("Kerberos KDC", started::close);
    kdc = started;
    Configuration secure = EmbeddedClusterSettings.kerberos(base, started, tokenRenewIntervalMs);
    UserGroupInformation.setConfiguration(secure);
    return secure;
  }

  private MiniDFSCluster startHdfs(Path dir, Configuration base) throws Exception {
    Configuration conf = EmbeddedClusterSettings.hdfs(base);
    MiniDFSCluster hdfs = kdc == null ? new MiniDFSCluster.Builder(conf, dir.toFile()).numDataNodes(1).build()
        : StandardErrorToLog.during("secure DataNode start-up",
            () -> new MiniDFSCluster.Builder(conf, dir.toFile()).numDataNodes(1).build());
    stops.add("HDFS", () -> stopHdfs(hdfs));
    hdfs.waitActive();
    LOG.info("HDFS started at {} (NameNode web UI http://{})",
        hdfs.getURI(), hdfs.getConfiguration(0).get("dfs.namenode.http-address"));
    return hdfs;
  }

  /**
   * While the JVM shuts down (Ctrl-C) the DataNode cannot finish its shutdown: it tries to remove
   * a Hadoop shutdown hook, which Hadoop refuses then, and its own hooks finish the job. The
   * NameNode must still be stopped, so that its edit log is closed.
   */
  private static void stopHdfs(MiniDFSCluster hdfs) {
    try {
      hdfs.shutdown();
    } catch (IllegalStateException jvmShuttingDown) {
      LOG.info("JVM shutting down: the DataNode is left to Hadoop's shutdown hooks ({})", jvmShuttingDown.getMessage());
      hdfs.shutdownNameNodes();
    }
  }

  private MiniYARNCluster startYarn(Path dir, Configuration secure) throws Exception {
    Path allocationFile = FairSchedulerAllocationFile.write(baseDir.resolve("fair-scheduler.xml"), mode);
    Configuration base = new Configuration(secure);
    base.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, hdfsUri.toString());
    YarnConfiguration conf = EmbeddedClusterSettings.yarn(base, size, allocationFile);
    EmbeddedClusterSettings.gpuClaimsIn(conf, baseDir.resolve("gpu-claims"));
    if (kdc != null) {
      EmbeddedClusterSettings.containersUse(conf, kdc);
    }
    if (preemptionGraceMs != null) {
      conf.setLong(org.edl.scheduler.rm.GpuFairPreemptionPolicy.GRACE_MS, preemptionGraceMs);
    }
    if (tiresiasQueueLimits != null) {
      conf.set(org.edl.scheduler.rm.TiresiasSettings.QUEUE_LIMITS, tiresiasQueueLimits);
    }
    if (ContainerLogs.kept()) {
      // Log aggregation removes a finished application's local container logs; keep them until close.
      conf.setInt(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, 24 * 3600);
    }
    // ResourceUtils caches the resource types and the node resources JVM-wide; without a reset
    // the RM ignores yarn.resource-types and the NodeManagers keep an earlier cluster's GPUs.
    ResourceUtils.resetResourceTypes(conf);
    ResourceUtils.resetNodeResources();

    MiniYARNCluster yarn = MiniYarnStart.onAFreeWebPort(dir, conf, size.nodes(), stops);
    if (!yarn.waitForNodeManagersToConnect(NODES_TIMEOUT.toMillis())) {
      throw new IOException("the NodeManagers did not register with the ResourceManager within " + NODES_TIMEOUT);
    }
    // Registered is not yet schedulable: the scheduler learns of each node from an event.
    ResourceScheduler scheduler = yarn.getResourceManager().getResourceScheduler();
    long gpus = (long) size.nodes() * size.gpusPerNode();
    waitUntil(() -> scheduler.getNumClusterNodes() == size.nodes()
            && scheduler.getClusterResource().getResourceValue(ResourceInformation.GPU_URI) == gpus,
        "the scheduler to see " + size.nodes() + " node(s) and " + gpus + " yarn.io/gpu");
    ResourceManagerWebUi.reclaim(yarn.getResourceManager());
    LOG.info("YARN started: ResourceManager {} with {} NodeManager(s), scheduler {}, cluster resource {}",
        yarn.getConfig().get(YarnConfiguration.RM_ADDRESS), size.nodes(),
        scheduler.getClass().getSimpleName(), scheduler.getClusterResource());
    return yarn;
  }

  private void stopServices() {
    stops.stopAll();
    if (ownsBaseDir && baseDir != null) {
      ContainerLogs.keep(baseDir);
      try {
        deleteRecursively(baseDir);
      } catch (IOException e) {
        LOG.warn("Could not remove {}: {}", baseDir, e.toString());
      }
    }
  }

  private static void waitUntil(BooleanSupplier condition, String what) throws IOException {
    long deadline = System.nanoTime() + NODES_TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IOException("timed out after " + NODES_TIMEOUT + " waiting for " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + what, e);
      }
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    }
  }
}
