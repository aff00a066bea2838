package org.edl.am;

import java.io.File;
import java.util.StringJoiner;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The classpath of the AM and worker containers: the container's working directory (the
 * shipped {@code edl.jar} and configuration), then the cluster's {@code yarn.application.classpath},
 * then, on the embedded cluster only, the submitting JVM's own classpath (the cluster runs on
 * this machine and there is no assembled jar in a test).
 */
public final class ContainerClasspath {
  /** Set by the client, only on the embedded cluster: the submitting JVM's classpath. */
  public static final String LOCAL_CLASSPATH_KEY = "edl.container.local-classpath";

  private ContainerClasspath() {}

  public static String of(Configuration conf) {
    StringJoiner cp = new StringJoiner(ApplicationConstants.CLASS_PATH_SEPARATOR);
    cp.add(Environment.PWD.$$());
    cp.add(Environment.PWD.$$() + "/*");
    for (String entry : conf.getTrimmedStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH,
        YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH)) {
      cp.add(entry);
    }
    String local = conf.getTrimmed(LOCAL_CLASSPATH_KEY, "");
    for (String entry : local.split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        cp.add(entry);
      }
    }
    return cp.toString();
  }
}
