package org.edl.am;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;

/**
 * The JVM options with which a job's workers on one node share the classes they load (AppCDS):
 * each maps the JDK's own archive and, once one of them has written it, the job's archive in the
 * application's directory on the node (the parent of the job's container directories there,
 * deleted with the application); each lists the classes it loads, from which the first to have
 * trained a few batches writes that archive ({@code org.edl.worker.runtime.ClassArchiveMaker}).
 * A missing or stale archive is ignored by the JVM, which then loads from the jars as without.
 */
public final class WorkerClassSharing {
  /** Admin switch in {@code edl-site.xml}; on by default. */
  public static final String ENABLED_KEY = "edl.worker.class-sharing";
  /** The job's archive, in the application's directory on each node. */
  public static final String ARCHIVE = "edl-worker.jsa";

  private WorkerClassSharing() {}

  public static List<String> jvmOptions(Configuration conf) {
    if (!conf.getBoolean(ENABLED_KEY, true)) {
      return List.of();
    }
    String jdkArchive = Environment.JAVA_HOME.$$() + "/lib/server/classes.jsa";
    return List.of("-XX:SharedArchiveFile=" + jdkArchive + ":" + Environment.PWD.$$() + "/../" + ARCHIVE,
        "-XX:DumpLoadedClassList=" + Environment.PWD.$$() + "/tmp/edl-loaded-classes.lst");
  }
}
