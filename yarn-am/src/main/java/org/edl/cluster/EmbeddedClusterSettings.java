package org.edl.cluster;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.job.WorkerEnv;
import org.edl.scheduler.rm.EdlFairScheduler;
import org.edl.scheduler.rm.GpuFairPreemptionPolicy;

/**
 * The server-side settings of the embedded cluster: the same keys a real cluster's
 * {@code yarn-site.xml} and {@code hdfs-site.xml} carry (see {@code conf/}), plus what a
 * single shared, possibly busy, development machine needs.
 */
public final class EmbeddedClusterSettings {
  /** The ResourceManager's AM launcher: launches and clean-ups are short, and queue when all are busy. */
  static final int AM_LAUNCHER_THREADS = 8;
  /**
   * Each NodeManager's log aggregation: an application's aggregator holds a thread for the whole
   * life of the application, so this bounds the applications per node whose logs are collected
   * as they run; more wait for a thread. The cluster has 8 GPUs, so more than 16 running jobs on
   * one node is unlikely.
   */
  static final int LOG_AGGREGATION_THREADS = 16;

  /** The NodeManager key MiniYARNCluster copies into each NodeManager's memory. */
  static final String MINICLUSTER_NM_MEMORY_MB = "yarn.minicluster.yarn.nodemanager.resource.memory-mb";
  static final String NM_GPU_KEY = YarnConfiguration.NM_RESOURCES_PREFIX + ResourceInformation.GPU_URI;
  static final String FAIR_ALLOCATION_FILE = "yarn.scheduler.fair.allocation.file";
  static final String FAIR_USER_AS_DEFAULT_QUEUE = "yarn.scheduler.fair.user-as-default-queue";
  static final String FAIR_ASSIGN_MULTIPLE = "yarn.scheduler.fair.assignmultiple";
  static final String NM_DISK_HEALTH_CHECK_ENABLE = "yarn.nodemanager.disk-health-checker.enable";
  static final String FAIR_PREEMPTION = "yarn.scheduler.fair.preemption";
  /** A secure DataNode on an ordinary port, without SASL: for tests only (HDFS's own tests use it). */
  static final String IGNORE_SECURE_PORTS = "ignore.secure.ports.for.testing";
  /** Where finished applications' container logs are collected, on the cluster's HDFS. */
  public static final String REMOTE_APP_LOG_DIR = "/tmp/logs";

  private EmbeddedClusterSettings() {}

  /** HDFS settings for a MiniDFSCluster with one DataNode. */
  public static Configuration hdfs(Configuration base) {
    Configuration conf = new Configuration(base);
    // One DataNode: ask for one replica, and do not look for a replacement DataNode when a
    // write pipeline breaks (there is none, so appends would fail).
    conf.setInt("dfs.replication", 1);
    conf.setBoolean("dfs.client.block.write.replace-datanode-on-failure.enable", false);
    // A NameNode on a nearly full shared disk would otherwise drop into safe mode.
    conf.setLong("dfs.namenode.resource.du.reserved", 0L);
    return conf;
  }

  /**
   * Kerberos for every service, as a secure real cluster's site files set it: the services log
   * in from {@code kdc}'s service keytab, HDFS hands out block access tokens, and clients must
   * authenticate (a Kerberos ticket, or the delegation tokens a job's containers get). Not a
   * real cluster's: the DataNode serves on unprivileged ports without SASL data transfer
   * protection ({@value #IGNORE_SECURE_PORTS}), which only tests may do.
   *
   * @param tokenRenewIntervalMs how long an HDFS delegation token lives unless renewed; null:
   *     HDFS's default (a day)
   */
  public static Configuration kerberos(Configuration base, EmbeddedKdc kdc, Long tokenRenewIntervalMs) {
    Configuration conf = new Configuration(base);
    conf.set(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION, "kerberos");
    String service = kdc.servicePrincipal();
    String keytab = kdc.serviceKeytab().toString();
    conf.setBoolean("dfs.block.access.token.enable", true);
    conf.set("dfs.namenode.kerberos.principal", service);
    conf.set("dfs.namenode.keytab.file", keytab);
    conf.set("dfs.namenode.kerberos.internal.spnego.principal", kdc.httpPrincipal());
    conf.set("dfs.web.authentication.kerberos.principal", kdc.httpPrincipal());
    conf.set("dfs.web.authentication.kerberos.keytab", keytab);
    conf.set("dfs.datanode.kerberos.principal", service);
    conf.set("dfs.datanode.keytab.file", keytab);
    // Not dfs.data.transfer.protection (SASL on block transfers): the NodeManager's localizer
    // reads with a configuration of its own, new YarnConfiguration(), which would lack it here.
    conf.setBoolean(IGNORE_SECURE_PORTS, true);
    if (tokenRenewIntervalMs != null) {
      conf.setLong("dfs.namenode.delegation.token.renew-interval", tokenRenewIntervalMs);
    }
    conf.set(YarnConfiguration.RM_PRINCIPAL, service);
    conf.set(YarnConfiguration.RM_KEYTAB, keytab);
    conf.set(YarnConfiguration.NM_PRINCIPAL, service);
    conf.set(YarnConfiguration.NM_KEYTAB, keytab);
    conf.set(YarnConfiguration.RM_WEBAPP_SPNEGO_USER_NAME_KEY, kdc.httpPrincipal());
    conf.set(YarnConfiguration.RM_WEBAPP_SPNEGO_KEYTAB_FILE_KEY, keytab);
    conf.set(YarnConfiguration.NM_WEBAPP_SPNEGO_USER_NAME_KEY, kdc.httpPrincipal());
    conf.set(YarnConfiguration.NM_WEBAPP_SPNEGO_KEYTAB_FILE_KEY, keytab);
    return conf;
  }

  /**
   * YARN settings: GPU resource type, the FairScheduler with the EDL scheduler plugin (fair GPU
   * sharing between users, deserved-share preemption with a grace period), NodeManager sizes.
   */
  public static YarnConfiguration yarn(Configuration base, ClusterSize size, Path allocationFile) {
    YarnConfiguration conf = new YarnConfiguration(base);
    conf.set(YarnConfiguration.RESOURCE_TYPES, ResourceInformation.GPU_URI);
    conf.setInt(NM_GPU_KEY, size.gpusPerNode());
    conf.setInt(YarnConfiguration.NM_PMEM_MB, size.nodeMemoryMb());
    conf.setInt(MINICLUSTER_NM_MEMORY_MB, size.nodeMemoryMb());
    conf.setInt(YarnConfiguration.NM_VCORES, size.nodeVcores());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, size.nodeMemoryMb());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, size.nodeVcores());

    // The EDL scheduler plugin, as conf/yarn-site.xml installs it on a real cluster.
    conf.setClass(YarnConfiguration.RM_SCHEDULER, EdlFairScheduler.class, Object.class);
    conf.setBoolean(FAIR_PREEMPTION, false);
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, GpuFairPreemptionPolicy.class.getName());
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    conf.set(FAIR_ALLOCATION_FILE, allocationFile.toAbsolutePath().toString());
    conf.setBoolean(FAIR_USER_AS_DEFAULT_QUEUE, false);
    // Hand out several containers per node heartbeat, so a job's workers start together.
    conf.setBoolean(FAIR_ASSIGN_MULTIPLE, true);
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 500L);

    // A job's AM may be restarted once: the second attempt adopts the running workers
    // (JobSubmitter asks for keep-containers-across-application-attempts).
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 2);

    // Container logs go to HDFS when an application ends, so `yarn logs -applicationId` works as
    // on a real cluster. (Without it the NodeManagers keep a 3-hour log-deletion timer that
    // holds up every shutdown by 10 s.)
    conf.setBoolean(YarnConfiguration.LOG_AGGREGATION_ENABLED, true);
    conf.set(YarnConfiguration.NM_REMOTE_APP_LOG_DIR, REMOTE_APP_LOG_DIR);
    // Both pools start a thread per task until they reach their size and keep every one: with
    // Hadoop's 50 and 100 (per NodeManager) a long-lived embedded cluster gained 3-4 idle threads
    // per finished job until then (bin/edl bench cluster-threads).
    conf.setInt(YarnConfiguration.RM_AMLAUNCHER_THREAD_COUNT, AM_LAUNCHER_THREADS);
    conf.setInt(YarnConfiguration.NM_LOG_AGGREGATION_THREAD_POOL_SIZE, LOG_AGGREGATION_THREADS);

    // JVMs reserve far more virtual memory than they use; and a busy shared disk must not
    // mark the NodeManagers unhealthy.
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setBoolean(NM_DISK_HEALTH_CHECK_ENABLE, false);
    conf.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 100.0f);
    conf.setLong(YarnConfiguration.NM_MIN_PER_DISK_FREE_SPACE_MB, 0L);

    // Containers find java through $JAVA_HOME, which this JVM's environment may not have:
    // give them the JDK this cluster runs on. JAVA_HOME leaves the whitelist so that the two
    // sources cannot be joined into one broken path.
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV,
        "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,JAVA_HOME=" + System.getProperty("java.home"));
    conf.set(YarnConfiguration.NM_ENV_WHITELIST, withoutJavaHome(
        conf.get(YarnConfiguration.NM_ENV_WHITELIST, YarnConfiguration.DEFAULT_NM_ENV_WHITELIST)));
    // On a real cluster this points at the installed Hadoop jars; here they are the jars this
    // JVM runs with, which are on the same machine as the containers.
    String classpath = localJarClasspath();
    if (!classpath.isEmpty()) {
      conf.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, classpath);
    }
    return conf;
  }

  /**
   * Workers claim GPU indices in {@code dir}, the cluster's own, as a node's administrator sets
   * {@link WorkerEnv#GPU_CLAIM_DIR}: the fake devices of two embedded clusters on one machine are
   * not each other's, and nothing of a test's claims is left in {@code /tmp}.
   */
  public static void gpuClaimsIn(YarnConfiguration conf, Path dir) {
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, conf.get(YarnConfiguration.NM_ADMIN_USER_ENV)
        + "," + WorkerEnv.GPU_CLAIM_DIR + "=" + dir.toAbsolutePath());
  }

  /**
   * Every JVM in the cluster's containers reads {@code kdc}'s {@code krb5.conf}, as JVMs on a
   * real secure cluster's nodes read {@code /etc/krb5.conf}: without it Hadoop's login in the
   * AM fails with "Can't get Kerberos realm", although containers authenticate with tokens.
   */
  public static void containersUse(YarnConfiguration conf, EmbeddedKdc kdc) {
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, conf.get(YarnConfiguration.NM_ADMIN_USER_ENV)
        + ",JAVA_TOOL_OPTIONS=-Djava.security.krb5.conf=" + kdc.krb5Conf());
  }

  public static String withoutJavaHome(String whitelist) {
    return Arrays.stream(whitelist.split(","))
        .map(String::trim)
        .filter(name -> !name.isEmpty() && !name.equals("JAVA_HOME"))
        .collect(Collectors.joining(","));
  }

  /**
   * The jar files on this JVM's class path. Left out: directories (build output) and EDL's own
   * jars, because a job ships its own and an older copy here must not shadow it.
   */
  public static String localJarClasspath() {
    String classpath = System.getProperty("java.class.path", "");
    return Arrays.stream(classpath.split(File.pathSeparator))
        .filter(entry -> entry.endsWith(".jar") && Files.isRegularFile(Path.of(entry)))
        .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("edl-"))
        .map(entry -> Path.of(entry).toAbsolutePath().toString())
        .distinct()
        .collect(Collectors.joining(","));
  }
}
