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
    return new WorkerConfig(appId, workerId, host, host, zkConnect, amAddress, spec, secret, hadoopConf,
        DEFAULT_STARTUP_TIMEOUT, DEFAULT_RPC_TIMEOUT, DEFAULT_PROGRESS_INTERVAL, Ticker.SYSTEM,
        DEFAULT_SWITCH_ALLOWANCE, null, null,
        DEFAULT_ZK_SESSION_TIMEOUT, DEFAULT_SHARED_MEMORY_DIR, GpuDevices.NONE);
  }

  public WorkerConfig withStartupTimeout(Duration timeout) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        timeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withNode(String nodeId) {
    return new WorkerConfig(appId, workerId, host, nodeId, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withProgressInterval(Duration interval) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, interval, ticker, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withSwitchAllowance(Duration allowance) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, allowance, profilesDir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withProfilesDir(Path dir) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, dir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withTicker(Ticker clock) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, clock, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withRestoreFrom(String checkpoint) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, checkpoint, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withRpcTimeout(Duration timeout) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, timeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withZkSessionTimeout(Duration timeout) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom, timeout, sharedMemoryDir, gpus);
  }

  public WorkerConfig withSharedMemoryDir(Path dir) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout,
        dir, gpus);
  }

  public WorkerConfig withGpus(GpuDevices devices) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, spec, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout,
        sharedMemoryDir, devices);
  }

  /** Where this worker's rings share memory with peers on its host: null where the job or the host says TCP. */
  public Path ringSharedMemoryDir() {
    return JobSpec.RING_TRANSPORT_TCP.equals(spec.ringTransport()) ? null : sharedMemoryDir;
  }

  public WorkerConfig withSpec(JobSpec job) {
    return new WorkerConfig(appId, workerId, host, node, zkConnect, amAddress, job, secret, hadoopConf,
        startupTimeout, rpcTimeout, progressInterval, ticker, switchAllowance, profilesDir, restoreFrom, zkSessionTimeout, sharedMemoryDir, gpus);
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
}
