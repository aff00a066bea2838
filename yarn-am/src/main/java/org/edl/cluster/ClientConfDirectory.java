package org.edl.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.job.WorkerEnv;

/**
 * A Hadoop client configuration directory, the kind {@code HADOOP_CONF_DIR} names: what the
 * ordinary {@code yarn}/{@code hdfs} client code and the EDL CLI read to find the
 * ResourceManager, HDFS and ZooKeeper. The embedded cluster writes one after it starts, so
 * clients reach it exactly as they reach a real cluster.
 */
public final class ClientConfDirectory {
  public static final String CORE_SITE = "core-site.xml";
  public static final String HDFS_SITE = "hdfs-site.xml";
  public static final String YARN_SITE = "yarn-site.xml";
  public static final String RESOURCE_TYPES = "resource-types.xml";
  public static final String EDL_SITE = "edl-site.xml";
  /** Every file, in the order a client adds them. */
  public static final List<String> FILES = List.of(CORE_SITE, HDFS_SITE, YARN_SITE, RESOURCE_TYPES, EDL_SITE);

  /** What a YARN client needs: where the RM is, and the limits it may ask within. */
  private static final List<String> YARN_CLIENT_KEYS = List.of(
      YarnConfiguration.RM_ADDRESS,
      YarnConfiguration.RM_SCHEDULER_ADDRESS,
      YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
      YarnConfiguration.RM_ADMIN_ADDRESS,
      YarnConfiguration.RM_WEBAPP_ADDRESS,
      YarnConfiguration.RM_SCHEDULER,
      YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB,
      YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB,
      YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES,
      YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES,
      YarnConfiguration.YARN_APPLICATION_CLASSPATH,
      YarnConfiguration.LOG_AGGREGATION_ENABLED,
      YarnConfiguration.NM_REMOTE_APP_LOG_DIR,
      // With Kerberos: whom the client's tokens name as renewer, and whom it authenticates.
      YarnConfiguration.RM_PRINCIPAL,
      YarnConfiguration.NM_PRINCIPAL,
      // Tells the EDL client to give containers its own classpath and configuration.
      YarnConfiguration.IS_MINI_YARN_CLUSTER);

  private static final List<String> HDFS_CLIENT_KEYS = List.of(
      "dfs.replication",
      "dfs.client.block.write.replace-datanode-on-failure.enable",
      "dfs.namenode.http-address",
      "dfs.namenode.kerberos.principal",
      "dfs.datanode.kerberos.principal");

  private ClientConfDirectory() {}

  /**
   * Writes the five files into {@code dir}.
   *
   * @param yarn the running YARN cluster's configuration (with the ports it bound)
   * @param hdfs the running HDFS cluster's configuration
   * @param fsUri the HDFS file system URI clients use as their default file system
   * @param zkConnect the ZooKeeper connect string
   */
  public static Path write(Path dir, Configuration yarn, Configuration hdfs, String fsUri, String zkConnect)
      throws IOException {
    Files.createDirectories(dir);

    Configuration core = new Configuration(false);
    core.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, fsUri);
    String authentication = yarn.get(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION, "simple");
    if (!authentication.equals("simple")) {
      core.set(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION, authentication);
    }
    write(dir.resolve(CORE_SITE), core);

    write(dir.resolve(HDFS_SITE), copy(hdfs, HDFS_CLIENT_KEYS));
    write(dir.resolve(YARN_SITE), copy(yarn, YARN_CLIENT_KEYS));

    Configuration resourceTypes = new Configuration(false);
    resourceTypes.set(YarnConfiguration.RESOURCE_TYPES, yarn.get(YarnConfiguration.RESOURCE_TYPES));
    write(dir.resolve(RESOURCE_TYPES), resourceTypes);

    Configuration edl = new Configuration(false);
    edl.set(WorkerEnv.ZK_CONNECT_KEY, zkConnect);
    write(dir.resolve(EDL_SITE), edl);
    return dir;
  }

  /**
   * Loads a configuration directory the way a client with {@code HADOOP_CONF_DIR} on its class
   * path sees it, without Hadoop's built-in defaults, so nothing but the files can take effect.
   */
  public static Configuration load(Path dir) {
    Configuration conf = new Configuration(false);
    for (String file : FILES) {
      Path path = dir.resolve(file);
      if (Files.isRegularFile(path)) {
        conf.addResource(new org.apache.hadoop.fs.Path(path.toUri()));
      }
    }
    return conf;
  }

  private static Configuration copy(Configuration from, List<String> keys) {
    Configuration to = new Configuration(false);
    for (String key : keys) {
      String value = from.get(key);
      if (value != null) {
        to.set(key, value);
      }
    }
    return to;
  }

  private static void write(Path file, Configuration conf) throws IOException {
    // Written whole to a temporary name and renamed, so a client never reads half a file.
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      conf.writeXml(out);
    }
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
