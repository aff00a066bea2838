package org.edl.am;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The classpath of the AM and worker containers: the jars in the container's working directory
 * (the shipped {@code edl.jar}) and those of the cluster's {@code yarn.application.classpath},
 * then, on the embedded cluster only, the jars of the submitting JVM's own classpath (the cluster
 * runs on this machine and there is no assembled jar in a test), and last the directories: the
 * working directory, the cluster's configuration directory and the submitting JVM's directories.
 * Directories go last because the JVM archives classes for sharing ({@link WorkerClassSharing})
 * only from a class path with no directory that holds files ahead of a jar. The configuration is
 * not looked up on this path where the job shipped one ({@link org.edl.job.ShippedConfiguration}).
 */
public final class ContainerClasspath {
  /** Set by the client, only on the embedded cluster: the submitting JVM's classpath. */
  public static final String LOCAL_CLASSPATH_KEY = "edl.container.local-classpath";

  private ContainerClasspath() {}

  public static String of(Configuration conf) {
    StringJoiner cp = new StringJoiner(ApplicationConstants.CLASS_PATH_SEPARATOR);
    List<String> directories = new ArrayList<>();
    directories.add(Environment.PWD.$$());
    cp.add(Environment.PWD.$$() + "/*");
    for (String entry : conf.getTrimmedStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH,
        YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH)) {
      if (isJars(entry)) {
        cp.add(entry);
      } else {
        directories.add(entry);
      }
    }
    String local = conf.getTrimmed(LOCAL_CLASSPATH_KEY, "");
    for (String entry : local.split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      if (isJars(entry)) {
        cp.add(entry);
      } else {
        directories.add(entry); // the client's HADOOP_CONF_DIR, which bin/edl puts first, among them
      }
    }
    directories.forEach(cp::add);
    return cp.toString();
  }

  /** A jar, or a directory's jars ({@code dir/*}); anything else names a directory. */
  static boolean isJars(String entry) {
    String e = entry.toLowerCase(java.util.Locale.ROOT);
    return e.endsWith("*") || e.endsWith(".jar") || e.endsWith(".zip");
  }
}
