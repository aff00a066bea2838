package org.edl.am;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;

/**
 * The command line of a JVM in a YARN container. The classpath comes from the container's
 * {@code CLASSPATH} variable (see {@link ContainerClasspath}): the node manager exports it
 * quoted, whereas a {@code -cp} argument would be glob-expanded by its {@code bash -c}.
 */
public final class JavaCommand {
  private JavaCommand() {}

  /** {@code $JAVA_HOME/bin/java <opens> -Xmx.. <main> 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr}. */
  public static List<String> of(String mainClass, int containerMemoryMb) {
    return of(mainClass, containerMemoryMb, List.of());
  }

  /** As {@link #of(String, int)}, with {@code options} after the {@code --add-opens}. */
  public static List<String> of(String mainClass, int containerMemoryMb, List<String> options) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Environment.JAVA_HOME.$$() + "/bin/java");
    cmd.addAll(JvmOptions.addOpens());
    cmd.addAll(options);
    cmd.add("-Xmx" + heapMb(containerMemoryMb) + "m");
    cmd.add("-Djava.io.tmpdir=" + Environment.PWD.$$() + "/tmp");
    cmd.add(mainClass);
    cmd.add("1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stdout");
    cmd.add("2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stderr");
    return List.of(String.join(" ", cmd));
  }

  /** Three quarters of the container for the heap; the rest is metaspace, stacks and buffers. */
  static int heapMb(int containerMemoryMb) {
    return Math.max(64, containerMemoryMb * 3 / 4);
  }
}
