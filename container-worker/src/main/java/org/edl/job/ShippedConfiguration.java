package org.edl.job;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The Hadoop configuration a job's AM and workers run with. On the embedded cluster, whose ports
 * are ephemeral, the client ships its own effective configuration in the staging directory, and
 * YARN localises it into every container's working directory: then those files, and nothing else,
 * are the configuration. Reading them by name from the class path is not enough: there the
 * containers also get the submitting JVM's class path, and a client started the usual way has its
 * {@code HADOOP_CONF_DIR} on it, whose {@code yarn-site.xml} lacks what the client added for the
 * containers (their class path) and would be found first. On a real cluster nothing is shipped,
 * and the node's own configuration ({@code HADOOP_CONF_DIR} on {@code yarn.application.classpath})
 * is read as any YARN application reads it.
 */
public final class ShippedConfiguration {
  /**
   * The names the client writes its configuration under, each holding all of it: one name is not
   * enough, since a configuration loading Hadoop's defaults reads {@code yarn-default.xml} after
   * {@code core-site.xml}, so its defaults would win over the cluster's addresses.
   */
  public static final List<String> FILES = List.of("core-site.xml", "hdfs-site.xml", "yarn-site.xml");

  private ShippedConfiguration() {}

  /** The shipped configuration in {@code workingDir}, or, where none was shipped, the node's. */
  public static Configuration load(Path workingDir) {
    if (!Files.isRegularFile(workingDir.resolve(FILES.get(0)))) {
      return new Configuration();
    }
    // No defaults from the class path: the shipped files hold every property the client had,
    // Hadoop's defaults included.
    Configuration shipped = new Configuration(false);
    for (String name : FILES) {
      Path file = workingDir.resolve(name);
      if (Files.isRegularFile(file)) {
        shipped.addResource(new org.apache.hadoop.fs.Path(file.toAbsolutePath().toUri()));
      }
    }
    return shipped;
  }
}
