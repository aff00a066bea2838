package org.edl.cluster;

import java.nio.file.Path;

/** Sizes and place of an embedded cluster; {@link #build()} checks them. */
public final class EmbeddedClusterBuilder {
  private int nodes = ClusterSize.DEFAULT_NODES;
  private int gpusPerNode = ClusterSize.DEFAULT_GPUS_PER_NODE;
  private int nodeMemoryMb = ClusterSize.DEFAULT_NODE_MEMORY_MB;
  private int nodeVcores = ClusterSize.DEFAULT_NODE_VCORES;
  private Path baseDir;
  private Long preemptionGraceMs;
  private FairSchedulerAllocationFile.Mode mode = FairSchedulerAllocationFile.Mode.FAIR;
  private String tiresiasQueueLimits;
  private boolean kerberos;
  private Long tokenRenewIntervalMs;

  EmbeddedClusterBuilder() {}

  /**
   * Kerberos on: a KDC ({@link EmbeddedKdc}) starts first, every service logs in from its
   * keytab, and clients must log in too (a keytab for this machine's user is issued). Turns
   * Kerberos on for the whole JVM: one secure cluster per JVM, and no insecure one after it.
   */
  public EmbeddedClusterBuilder kerberos(boolean on) {
    this.kerberos = on;
    return this;
  }

  /** With Kerberos, how long an HDFS delegation token lives unless renewed; default HDFS's (a day). */
  public EmbeddedClusterBuilder tokenRenewIntervalMs(long ms) {
    if (ms <= 0) {
      throw new org.edl.job.InvalidInputException("token-renew-interval-ms", ms, "must be more than 0");
    }
    this.tokenRenewIntervalMs = ms;
    return this;
  }

  /**
   * How long a container warned for preemption may run before the ResourceManager kills it;
   * default: the plugin's (30 s). Tests shorten it.
   */
  public EmbeddedClusterBuilder preemptionGraceMs(long graceMs) {
    if (graceMs < 0) {
      throw new org.edl.job.InvalidInputException("preemption-grace-ms", graceMs, "must be 0 or more");
    }
    this.preemptionGraceMs = graceMs;
    return this;
  }

  /** How the RM orders users and applications in {@code root.users}; default the fair share. */
  public EmbeddedClusterBuilder schedulingMode(FairSchedulerAllocationFile.Mode mode) {
    this.mode = java.util.Objects.requireNonNull(mode, "mode");
    return this;
  }

  /**
   * The Elastic-Tiresias mode's queue bounds in GPU-seconds, as {@code yarn-site.xml} gives them
   * ({@code 500,10000} by default); tests lower them so that a job leaves the first queue in
   * seconds. A bad value stops the ResourceManager at start naming the key and the value.
   */
  public EmbeddedClusterBuilder tiresiasQueueLimits(String limits) {
    try {
      org.edl.scheduler.rm.TiresiasSettings.queueLimits(limits);
    } catch (IllegalArgumentException e) {
      throw new org.edl.job.InvalidInputException("tiresias-queue-limits", limits,
          "must be " + org.edl.scheduler.rm.TiresiasSettings.QUEUE_LIMITS_EXPECTED);
    }
    this.tiresiasQueueLimits = limits;
    return this;
  }

  /** NodeManagers to start; default 2. */
  public EmbeddedClusterBuilder nodes(int nodes) {
    this.nodes = nodes;
    return this;
  }

  /** {@code yarn.io/gpu} each NodeManager advertises; default 4. */
  public EmbeddedClusterBuilder gpusPerNode(int gpusPerNode) {
    this.gpusPerNode = gpusPerNode;
    return this;
  }

  /** Memory each NodeManager offers; default 8192 MB. */
  public EmbeddedClusterBuilder nodeMemoryMb(int nodeMemoryMb) {
    this.nodeMemoryMb = nodeMemoryMb;
    return this;
  }

  /** Vcores each NodeManager offers; default 8. */
  public EmbeddedClusterBuilder nodeVcores(int nodeVcores) {
    this.nodeVcores = nodeVcores;
    return this;
  }

  /**
   * Where the services keep data, logs and the client configuration ({@code <dir>/conf});
   * kept after close. Default: a new temporary directory, removed on close.
   */
  public EmbeddedClusterBuilder baseDir(Path baseDir) {
    this.baseDir = baseDir;
    return this;
  }

  /**
   * @throws org.edl.job.InvalidInputException naming the first size that is out of range
   */
  public EmbeddedCluster build() {
    return new EmbeddedCluster(new ClusterSize(nodes, gpusPerNode, nodeMemoryMb, nodeVcores).validate(), baseDir,
        preemptionGraceMs, mode, tiresiasQueueLimits, kerberos, tokenRenewIntervalMs);
  }
}
