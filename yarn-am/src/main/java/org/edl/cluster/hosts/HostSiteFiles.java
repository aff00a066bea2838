package org.edl.cluster.hosts;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.cluster.EmbeddedClusterSettings;
import org.edl.job.WorkerEnv;

/**
 * The configuration directories of the multi-host cluster, written as an admin would: each host's
 * {@code yarn-site.xml} is the shipped {@code conf/yarn-site.xml} with its ADAPT lines filled in for
 * that host, beside the shipped {@code resource-types.xml} and {@code fair-scheduler.xml}; and a
 * client directory for {@code HADOOP_CONF_DIR} with the shipped {@code edl-site.xml} naming the
 * ensemble. Every address is a host's own (the hosts have no names that resolve everywhere).
 */
final class HostSiteFiles {
  static final int NAMENODE_PORT = 8020;
  static final int NAMENODE_HTTP_PORT = 9870;
  static final int DATANODE_PORT = 9866;
  static final int RM_PORT = 8032;
  static final int RM_WEB_PORT = 8088;
  static final int NM_PORT = 45454;
  static final int ZK_CLIENT_PORT = 2181;
  /** Each NodeManager's log directory under its host's, where container logs stay with aggregation off. */
  static final String NM_LOGS = "nm-logs";

  private final Path shippedConf;
  private final MultiHostLayout layout;
  private final Map<String, String> yarnSettings;
  private final Map<String, String> hdfsSettings;

  HostSiteFiles(Path shippedConf, MultiHostLayout layout, Map<String, String> yarnSettings,
      Map<String, String> hdfsSettings) {
    this.shippedConf = shippedConf;
    this.layout = layout;
    this.yarnSettings = Map.copyOf(yarnSettings);
    this.hdfsSettings = Map.copyOf(hdfsSettings);
  }

  /** {@code dir}/conf of {@code host}: what its daemons read, first on their class path. */
  Path writeHost(SimulatedHost host, Path hostDir) throws IOException {
    Path conf = Files.createDirectories(hostDir.resolve("conf"));
    write(conf.resolve("core-site.xml"), core(hostDir));
    write(conf.resolve("hdfs-site.xml"), hdfs(host, hostDir));
    write(conf.resolve("yarn-site.xml"), yarn(host, hostDir));
    Files.copy(shippedConf.resolve("resource-types.xml"), conf.resolve("resource-types.xml"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(conf.resolve("log4j.properties"), String.join("\n",
        "log4j.rootLogger=INFO,console",
        "log4j.appender.console=org.apache.log4j.ConsoleAppender",
        "log4j.appender.console.layout=org.apache.log4j.PatternLayout",
        "log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n", ""),
        StandardCharsets.UTF_8);
    return conf;
  }

  /** The client configuration directory: point {@code HADOOP_CONF_DIR} here. */
  Path writeClient(Path dir) throws IOException {
    Path conf = Files.createDirectories(dir);
    write(conf.resolve("core-site.xml"), core(null));
    Configuration hdfs = new Configuration(false);
    hdfs.setInt("dfs.replication", layout.replication());
    write(conf.resolve("hdfs-site.xml"), hdfs);
    Configuration yarn = new Configuration(false);
    yarn.set(YarnConfiguration.RM_HOSTNAME, layout.resourceManager().address());
    yarn.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, applicationClasspath());
    write(conf.resolve("yarn-site.xml"), yarn);
    Files.copy(shippedConf.resolve("resource-types.xml"), conf.resolve("resource-types.xml"),
        StandardCopyOption.REPLACE_EXISTING);
    Configuration edl = new Configuration(false);
    edl.addResource(new org.apache.hadoop.fs.Path(shippedConf.resolve("edl-site.xml").toUri()));
    edl.set(WorkerEnv.ZK_CONNECT_KEY, layout.zooKeeperConnect(ZK_CLIENT_PORT));
    write(conf.resolve("edl-site.xml"), edl);
    return conf;
  }

  private Configuration core(Path hostDir) {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "hdfs://" + layout.nameNode().address() + ":" + NAMENODE_PORT);
    if (hostDir != null) {
      conf.set("hadoop.tmp.dir", hostDir.resolve("tmp").toString());
    }
    return conf;
  }

  private Configuration hdfs(SimulatedHost host, Path hostDir) {
    Configuration conf = new Configuration(false);
    String nn = layout.nameNode().address();
    conf.setInt("dfs.replication", layout.replication());
    conf.set("dfs.namenode.rpc-address", nn + ":" + NAMENODE_PORT);
    conf.set("dfs.namenode.http-address", nn + ":" + NAMENODE_HTTP_PORT);
    conf.set("dfs.namenode.name.dir", hostDir.resolve("namenode").toString());
    conf.set("dfs.datanode.data.dir", hostDir.resolve("datanode").toString());
    if (host != null) {
      // Every namespace shares the machine's host name: a DataNode that registered under it
      // would look like the others' to HDFS's placement of replicas.
      conf.set("dfs.datanode.hostname", host.address());
    }
    conf.set("dfs.datanode.address", "0.0.0.0:" + DATANODE_PORT);
    conf.set("dfs.datanode.http.address", "0.0.0.0:9864");
    conf.set("dfs.datanode.ipc.address", "0.0.0.0:9867");
    // The hosts are addresses without names: the NameNode must accept a DataNode it cannot resolve.
    conf.setBoolean("dfs.namenode.datanode.registration.ip-hostname-check", false);
    // An empty file system has nothing to wait for; and the machine's disk is shared.
    conf.setInt("dfs.namenode.safemode.extension", 0);
    conf.setLong("dfs.namenode.resource.du.reserved", 0L);
    // What an admin sets where hosts can vanish: a DataNode silent for 30 s is read last and not
    // written to, long before the NameNode declares it dead (10.5 minutes by default). Without it
    // a client's new block goes to a lost host's DataNode, and after three such picks the write
    // fails ("Unable to create new block").
    conf.setBoolean("dfs.namenode.avoid.read.stale.datanode", true);
    conf.setBoolean("dfs.namenode.avoid.write.stale.datanode", true);
    hdfsSettings.forEach(conf::set);
    return conf;
  }

  private Configuration yarn(SimulatedHost host, Path hostDir) {
    Configuration conf = new Configuration(false);
    conf.addResource(new org.apache.hadoop.fs.Path(shippedConf.resolve("yarn-site.xml").toUri()));
    // The shipped file's ADAPT lines, for this machine.
    conf.set("yarn.scheduler.fair.allocation.file", layout.fairSchedulerFile().toString());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, layout.hostMemoryMb());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, layout.hostVcores());
    layout.gpus().configure(conf, hostDir);
    // Where each daemon is, and what each host offers.
    conf.set(YarnConfiguration.RM_HOSTNAME, layout.resourceManager().address());
    conf.set(YarnConfiguration.NM_ADDRESS, host.address() + ":" + NM_PORT);
    conf.set("yarn.nodemanager.hostname", host.address());
    conf.set(YarnConfiguration.NM_LOCAL_DIRS, hostDir.resolve("nm-local").toString());
    conf.set(YarnConfiguration.NM_LOG_DIRS, hostDir.resolve(NM_LOGS).toString());
    conf.setInt(YarnConfiguration.NM_PMEM_MB, layout.hostMemoryMb());
    conf.setInt(YarnConfiguration.NM_VCORES, layout.hostVcores());
    conf.setBoolean(YarnConfiguration.LOG_AGGREGATION_ENABLED, true);
    conf.set(YarnConfiguration.NM_REMOTE_APP_LOG_DIR, EmbeddedClusterSettings.REMOTE_APP_LOG_DIR);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 2);
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 500L);
    // One machine's disks and memory, shared by every host: what EmbeddedClusterSettings also turns off.
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setBoolean("yarn.nodemanager.disk-health-checker.enable", false);
    conf.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 100.0f);
    // Containers find the JDK and the Hadoop jars this machine has, as a node's installation.
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, "JAVA_HOME=" + System.getProperty("java.home"));
    conf.set(YarnConfiguration.NM_ENV_WHITELIST, EmbeddedClusterSettings.withoutJavaHome(
        YarnConfiguration.DEFAULT_NM_ENV_WHITELIST));
    conf.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, applicationClasspath());
    yarnSettings.forEach(conf::set);
    return conf;
  }

  /** As Hadoop's default: the node's configuration directory, then its Hadoop jars (this machine's). */
  private static String applicationClasspath() {
    return "$HADOOP_CONF_DIR," + EmbeddedClusterSettings.localJarClasspath();
  }

  static void write(Path file, Configuration conf) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      conf.writeXml(out);
    }
  }

  static List<String> fileNames() {
    return List.of("core-site.xml", "hdfs-site.xml", "yarn-site.xml", "resource-types.xml", "edl-site.xml");
  }
}
