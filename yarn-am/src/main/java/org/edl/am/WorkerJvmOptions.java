package org.edl.am;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/** The options of every worker JVM besides its heap size and {@code --add-opens}, as the cluster's configuration sets them. */
public final class WorkerJvmOptions {
  private WorkerJvmOptions() {}

  public static List<String> of(Configuration conf) {
    List<String> options = new ArrayList<>(WorkerClassSharing.jvmOptions(conf));
    options.addAll(WorkerHugePages.jvmOptions(conf));
    return List.copyOf(options);
  }
}
