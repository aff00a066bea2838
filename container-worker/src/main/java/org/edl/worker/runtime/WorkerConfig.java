package org.edl.worker.runtime;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.HostPort;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.WorkerEnv;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.Ticker;
import org.edl.worker.gpu.GpuDevices;

/**
 * Everything one worker needs, explicit, so that tests run several workers as threads of one
 * JVM with their own secret, ZooKeeper and (no) AM. {@link WorkerMain} builds it from the
 * container's environment.
 *
 * @param appId            YARN application id; the job's ZooKeeper subtree
 * @param workerId         YARN container id
 * @param host             address the coordinator and data plane bind to and advertise
 * @param node             the NodeManager's id ({@code host:port}) the worker runs under; two
 *                         nodes on one host (the embedded cluster's) are two nodes of the ring's
 *                         placement
 * @param zkConnect        ZooKeeper connect string
 * @param amAddress        the AM's job-control {@code host:port}; null: report to nobody
 * @param spec             the job
 * @param secret           the job's secret
 * @param hadoopConf       for loading data and writing the model
 * @param startupTimeout   limit for finding the leader and the ring forming
 * @param rpcTimeout       connect/read limit of control calls
 * @param progressInterval how often the leader reports to the AM
 * @param ticker           clock for batch times and rates
 * @param switchAllowance  T_a: how far ahead the leader schedules a topology switch
 * @param profilesDir      measured profiles for the emulated backend; null: those the worker jar carries
 * @param restoreFrom      checkpoint (or directory of checkpoints) the job restarts from; null:
 *                         a fresh start
 * @param zkSessionTimeout the worker's ZooKeeper session timeout: a dead worker's presence node
 *                         vanishes after it, and the leader declares it failed
 * @param sharedMemoryDir  the host's directory (a tmpfs) where ring links to workers on the same
 *                         host may share memory; null: TCP only
 * @param gpus             the GPUs this worker trains on, as its container holds them (see
 *                         {@link org.edl.worker.gpu.ContainerGpus}); none in tests and cpu jobs
 */
public record WorkerConfig(
    String appId,
    String workerId,
    String host,
    String node,
    String zkConnect,
    HostPort amAddress,
    JobSpec spec,
    JobSecret secret,
    Configuration hadoopConf,
    Duration startupTimeout,
    Duration rpcTimeout,
    Duration progressInterval,
    Ticker ticker,
    Duration switchAllowance,
    Path profilesDir,
    String restoreFrom,
    Duration zkSessionTimeout,
    Path sharedMemoryDir,
    GpuDevices gpus) {

  public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofMinutes(5);
  public static final Duration DEFAULT_RPC_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_SWITCH_ALLOWANCE = CoordinatorState.DEFAULT_SWITCH_ALLOWANCE;
  public static final Duration DEFAULT_ZK_SESSION_TIMEOUT = Duration.ofSeconds(30);
  public static final Path DEFAULT_SHARED_MEMORY_DIR = Path.of("/dev/shm");

  public WorkerConfig {
    Objects.requireNonNull(appId, "appId");
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(zkConnect, "zkConnect");
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(hadoopConf, "hadoopConf");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(switchAllowance, "switchAllowance");
    Objects.requireNonNull(gpus, "gpus");
    if (restoreFrom != null && restoreFrom.isBlank()) {
      throw new InvalidInputException(WorkerEnv.RESTORE_FROM, restoreFrom, "must name a checkpoint directory");
    }
    Objects.requireNonNull(zkSessionTimeout, "zkSessionTimeout");
    if (zkSessionTimeout.toMillis() < 1) {
      throw new InvalidInputException(WorkerEnv.ZK_SESSION_TIMEOUT_MS, zkSessionTimeout.toMillis(), "must be at least 1 ms");
    }
    if (switchAllowance.isNegative()) {
      throw new InvalidInputException(WorkerEnv.SWITCH_ALLOWANCE_MS, switchAllowance.toMillis(), "must not be negative");
    }
  }

  /** Defaults for the timeouts and clock. */
  public static WorkerConfig of(String appId, String workerId, String host, String zkConnect,
      HostPort amAddress, JobSpec spec, JobSecret secret, Configuration hadoopConf) {
    return new Builder(appId, workerId, host, zkConnect, amAddress, spec, secret, hadoopConf).build();
  }

  public WorkerConfig withStartupTimeout(Duration timeout) {
    return toBuilder().startupTimeout(timeout).build();
  }

  public WorkerConfig withNode(String nodeId) {
    return toBuilder().node(nodeId).build();
  }

  public WorkerConfig withProgressInterval(Duration interval) {
    return toBuilder().progressInterval(interval).build();
  }

  public WorkerConfig withSwitchAllowance(Duration allowance) {
    return toBuilder().switchAllowance(allowance).build();
  }

  public WorkerConfig withProfilesDir(Path dir) {
    return toBuilder().profilesDir(dir).build();
  }

  public WorkerConfig withTicker(Ticker clock) {
    return toBuilder().ticker(clock).build();
  }

  public WorkerConfig withRestoreFrom(String checkpoint) {
    return toBuilder().restoreFrom(checkpoint).build();
  }

  public WorkerConfig withRpcTimeout(Duration timeout) {
    return toBuilder().rpcTimeout(timeout).build();
  }

  public WorkerConfig withZkSessionTimeout(Duration timeout) {
    return toBuilder().zkSessionTimeout(timeout).build();
  }

  public WorkerConfig withSharedMemoryDir(Path dir) {
    return toBuilder().sharedMemoryDir(dir).build();
  }

  public WorkerConfig withGpus(GpuDevices devices) {
    return toBuilder().gpus(devices).build();
  }

  /** Where this worker's rings share memory with peers on its host: null where the job or the host says TCP. */
  public Path ringSharedMemoryDir() {
    return JobSpec.RING_TRANSPORT_TCP.equals(spec.ringTransport()) ? null : sharedMemoryDir;
  }

  public WorkerConfig withSpec(JobSpec job) {
    return toBuilder().spec(job).build();
  }

  /**
   * From a container's environment ({@link WorkerEnv}): YARN sets {@code CONTAINER_ID} and
   * {@code NM_HOST}; the AM sets the EDL variables.
   */
  public static WorkerConfig fromEnvironment(Map<String, String> env, JobSpec spec,
      JobSecret secret, Configuration hadoopConf) {
    String ring = env.getOrDefault(WorkerEnv.FIRST_RING_WORKERS, "").trim();
    if (!ring.isEmpty()) {
      try {
        spec = spec.withWorkers(Integer.parseInt(ring));
      } catch (NumberFormatException e) {
        throw new InvalidInputException(WorkerEnv.FIRST_RING_WORKERS, ring, "not a whole number of workers");
      }
    }
    if (Recovery.approximateRequested(env.get(Recovery.APPROXIMATE_ENV))) {
      // The paper's switch, set in the job's (so the container's) environment: it wins over the spec.
      spec = spec.toBuilder().recovery(spec.recovery().withMode(Recovery.Mode.APPROXIMATE)).build();
    }
    String am = env.getOrDefault(WorkerEnv.AM_ADDRESS, "").trim();
    WorkerConfig config = of(required(env, WorkerEnv.APP_ID), required(env, WorkerEnv.CONTAINER_ID),
        required(env, WorkerEnv.NM_HOST), required(env, WorkerEnv.ZK_CONNECT),
        am.isEmpty() ? null : HostPort.parse(am), spec, secret, hadoopConf);
    String nmPort = env.getOrDefault(WorkerEnv.NM_PORT, "").trim();
    if (!nmPort.isEmpty()) {
      config = config.withNode(config.host() + ":" + nmPort);
    }
    String profiles = env.getOrDefault(WorkerEnv.PROFILES_DIR, "").trim();
    if (!profiles.isEmpty()) {
      config = config.withProfilesDir(Path.of(profiles));
    }
    String restore = env.getOrDefault(WorkerEnv.RESTORE_FROM, "").trim();
    if (!restore.isEmpty()) {
      config = config.withRestoreFrom(restore);
    }
    String session = env.getOrDefault(WorkerEnv.ZK_SESSION_TIMEOUT_MS, "").trim();
    if (!session.isEmpty()) {
      try {
        config = config.withZkSessionTimeout(Duration.ofMillis(Long.parseLong(session)));
      } catch (NumberFormatException e) {
        throw new InvalidInputException(WorkerEnv.ZK_SESSION_TIMEOUT_MS, session, "not a whole number of milliseconds");
      }
    }
    String shm = env.getOrDefault(WorkerEnv.SHARED_MEMORY_DIR, "").trim();
    if (!shm.isEmpty()) {
      config = config.withSharedMemoryDir("none".equals(shm) ? null : Path.of(shm));
    }
    String allowance = env.getOrDefault(WorkerEnv.SWITCH_ALLOWANCE_MS, "").trim();
    if (allowance.isEmpty()) {
      return config;
    }
    try {
      return config.withSwitchAllowance(Duration.ofMillis(Long.parseLong(allowance)));
    } catch (NumberFormatException e) {
      throw new InvalidInputException(WorkerEnv.SWITCH_ALLOWANCE_MS, allowance, "not a whole number of milliseconds");
    }
  }

  private static String required(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new InvalidInputException(name, v, "environment variable not set in the worker container");
    }
    return v.trim();
  }

  /** This configuration with some parts changed (the {@code with...} methods are one part each). */
  public Builder toBuilder() {
    Builder b = new Builder(appId, workerId, host, zkConnect, amAddress, spec, secret, hadoopConf);
    b.node = node;
    b.startupTimeout = startupTimeout;
    b.rpcTimeout = rpcTimeout;
    b.progressInterval = progressInterval;
    b.ticker = ticker;
    b.switchAllowance = switchAllowance;
    b.profilesDir = profilesDir;
    b.restoreFrom = restoreFrom;
    b.zkSessionTimeout = zkSessionTimeout;
    b.sharedMemoryDir = sharedMemoryDir;
    b.gpus = gpus;
    return b;
  }

  /** Starts from {@link #of}'s defaults; every part has a setter named for it. */
  public static final class Builder {
    private final String appId;
    private final String workerId;
    private final String host;
    private String node;
    private final String zkConnect;
    private final HostPort amAddress;
    private JobSpec spec;
    private final JobSecret secret;
    private final Configuration hadoopConf;
    private Duration startupTimeout;
    private Duration rpcTimeout;
    private Duration progressInterval;
    private Ticker ticker;
    private Duration switchAllowance;
    private Path profilesDir;
    private String restoreFrom;
    private Duration zkSessionTimeout;
    private Path sharedMemoryDir;
    private GpuDevices gpus;

    private Builder(String appId, String workerId, String host, String zkConnect, HostPort amAddress, JobSpec spec,
        JobSecret secret, Configuration hadoopConf) {
      this.appId = appId;
      this.workerId = workerId;
      this.host = host;
      this.node = host;
      this.zkConnect = zkConnect;
      this.amAddress = amAddress;
      this.spec = spec;
      this.secret = secret;
      this.hadoopConf = hadoopConf;
      this.startupTimeout = DEFAULT_STARTUP_TIMEOUT;
      this.rpcTimeout = DEFAULT_RPC_TIMEOUT;
      this.progressInterval = DEFAULT_PROGRESS_INTERVAL;
      this.ticker = Ticker.SYSTEM;
      this.switchAllowance = DEFAULT_SWITCH_ALLOWANCE;
      this.zkSessionTimeout = DEFAULT_ZK_SESSION_TIMEOUT;
      this.sharedMemoryDir = DEFAULT_SHARED_MEMORY_DIR;
      this.gpus = GpuDevices.NONE;
    }

    public Builder node(String v) {
      this.node = v;
      return this;
    }

    public Builder spec(JobSpec v) {
      this.spec = v;
      return this;
    }

    public Builder startupTimeout(Duration v) {
      this.startupTimeout = v;
      return this;
    }

    public Builder rpcTimeout(Duration v) {
      this.rpcTimeout = v;
      return this;
    }

    public Builder progressInterval(Duration v) {
      this.progressInterval = v;
      return this;
    }

    public Builder ticker(Ticker v) {
      this.ticker = v;
      return this;
    }

    public Builder switchAllowance(Duration v) {
      this.switchAllowance = v;
      return this;
    }

    public Builder profilesDir(Path v) {
      this.profilesDir = v;
      return this;
    }

    public Builder restoreFrom(String v) {
      this.restoreFrom = v;
      return this;
    }

    public Builder zkSessionTimeout(Duration v) {
      this.zkSessionTimeout = v;
      return this;
    }

    public Builder sharedMemoryDir(Path v) {
      this.sharedMemoryDir = v;
      return this;
    }

    public Builder gpus(GpuDevices v) {
      this.gpus = v;
      return this;
    }

    public WorkerConfig build() {
      return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
          startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom,
          zkSessionTimeout, sharedMemoryDir, gpus);
    }
  }
}
