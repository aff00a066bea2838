package org.edl.job;


/**
 * The contract between the ApplicationMaster and a worker container: the environment variables
 * the AM sets, the files it localises and the exit statuses it reads. The worker never imports
 * the AM; both read this. The job's secret is not here: it travels in the container's YARN
 * credentials under {@link JobSecret#CREDENTIALS_KEY}. The ZooKeeper layout is {@link JobPaths}.
 */
public final class WorkerEnv {
  /** Class the worker container runs. */
  public static final String MAIN_CLASS = "org.edl.worker.runtime.WorkerMain";
  /** The YARN application id; names the job's ZooKeeper subtree {@code /edl/<appId>}. */
  public static final String APP_ID = "EDL_APP_ID";
  /** ZooKeeper connect string (from {@code edl.zookeeper.connect} in edl-site.xml). */
  public static final String ZK_CONNECT = "EDL_ZK_CONNECT";
  /** {@code host:port} of the AM's job-control endpoint; the leader reports progress there. */
  public static final String AM_ADDRESS = "EDL_AM_ADDRESS";
  /**
   * GPU device indices the AM suggests to this container, comma separated; may be empty. Where
   * YARN does not isolate devices the worker claims these on its node first, then any other free
   * one ({@code org.edl.worker.gpu.ContainerGpus}); the AM knows only its own job's containers.
   */
  public static final String GPU_INDICES = "EDL_GPU_INDICES";
  /**
   * The {@code yarn.io/gpu} the container's node advertises, as the AM read it from the
   * ResourceManager: the indices a worker may claim are those below it. Absent when unknown.
   */
  public static final String NODE_GPUS = "EDL_NODE_GPUS";
  /**
   * Optional, for a node's administrator ({@code yarn.nodemanager.admin-env}): the directory where
   * the workers of every job on this node claim GPU indices (one lock file per index, in a
   * sub-directory per NodeManager); {@code none}: YARN isolates the devices on this node, claim
   * nothing. Default {@code /tmp/edl-gpu-claims}.
   */
  public static final String GPU_CLAIM_DIR = "EDL_GPU_CLAIM_DIR";
  /** Optional: T_a, how far ahead (ms) the leader schedules a topology switch; default 500. */
  public static final String SWITCH_ALLOWANCE_MS = "EDL_SWITCH_ALLOWANCE_MS";
  /**
   * Optional: restart the job from a checkpoint (stop-resume, or recovery): a checkpoint's own
   * directory or a directory of checkpoints (its newest is used). Every worker of the restarted
   * job's first ring gets the same value; it loads the parameters, and the first ring's leader
   * starts the job at the checkpoint's step and sample position.
   */
  public static final String RESTORE_FROM = "EDL_RESTORE_FROM";
  /**
   * Workers of the first ring when it differs from {@code job.properties}: a stop-resume relaunch
   * at a new size sets it next to {@link #RESTORE_FROM}, so the job's files stay as submitted.
   */
  public static final String FIRST_RING_WORKERS = "EDL_FIRST_RING_WORKERS";
  /**
   * Optional: the worker's ZooKeeper session timeout in ms (default 30000). A worker that dies
   * is declared failed when its session ends, so this bounds detection of a silent death; keep
   * it well above GC pauses and network blips.
   */
  public static final String ZK_SESSION_TIMEOUT_MS = "EDL_ZK_SESSION_TIMEOUT_MS";
  /**
   * Optional: a directory of measured profiles ({@code <model>/placements.csv}) for the emulated
   * backend; without it the worker reads the ones its jar carries.
   */
  public static final String PROFILES_DIR = "EDL_PROFILES_DIR";
  /**
   * The worker container's memory in MB, as the AM asked YARN for it: what the NodeManager's
   * memory check holds the container's processes to (the worker keeps a second JVM it would start
   * within it).
   */
  public static final String CONTAINER_MEMORY_MB = "EDL_CONTAINER_MEMORY_MB";
  /**
   * Optional, for a node's administrator ({@code yarn.nodemanager.admin-env}): the directory where
   * workers on this host share ring segments, a tmpfs; {@code none}: TCP only on this host.
   * Default {@code /dev/shm}.
   */
  public static final String SHARED_MEMORY_DIR = "EDL_SHM_DIR";
  /** Name of the localised job specification in the container's working directory. */
  public static final String JOB_SPEC_FILE = "job.properties";
  /** Set by YARN: this container's id, which is the worker's id. */
  public static final String CONTAINER_ID = "CONTAINER_ID";
  /** Set by YARN: the NodeManager's host name. */
  public static final String NM_HOST = "NM_HOST";
  /** Set by YARN: the NodeManager's port; with NM_HOST, the node's id. */
  public static final String NM_PORT = "NM_PORT";
  /** The configuration key holding the ZooKeeper connect string on the client side. */
  public static final String ZK_CONNECT_KEY = "edl.zookeeper.connect";
  /**
   * The client-side configuration key for {@link #ZK_SESSION_TIMEOUT_MS}: the submitter passes it
   * to the AM, the AM to every worker. A dead leader is replaced only once its session expires.
   */
  public static final String ZK_SESSION_TIMEOUT_KEY = "edl.zookeeper.session-timeout-ms";

  /**
   * Exit status of a worker that finished training or stopped for a restart (the leader after
   * writing the checkpoint).
   */
  public static final int EXIT_OK = 0;
  /**
   * Exit status of a worker that left the job at a scheduled step while training goes on
   * (graceful scale-in, a migration, or a straggler the leader removed): the AM must not take it
   * for "training finished", whether or not it asked for the departure.
   */
  public static final int EXIT_LEFT = 3;
  /**
   * Exit status of a worker the leader declared failed while it was still alive (it missed its
   * sync, or its ZooKeeper session expired): the job went on without it, which refuses it from
   * then on. The AM takes it as a failed worker (counted against max-worker-failures) and may
   * start a replacement, which joins by stop-free scale-out.
   */
  public static final int EXIT_FENCED = 4;
  /** Exit status of a worker that failed; the cause is on stderr, which YARN's diagnostics carry. */
  public static final int EXIT_FAILED = 1;

  private WorkerEnv() {}
}
