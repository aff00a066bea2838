package org.edl.am;

import java.io.IOException;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;
import org.edl.job.ShippedConfiguration;
import org.edl.job.WorkerEnv;

/**
 * The job's HDFS staging directory {@code /user/<user>/.edl/<appId>/}, as the client writes it
 * and the AM reads it: every file in it is localised into the AM's and every worker's working
 * directory under its own name.
 */
public final class StagingLayout {
  /** Env var of the AM container: the staging directory's fully qualified URI. */
  public static final String STAGING_DIR_ENV = "EDL_STAGING_DIR";
  /** The job specification; the output directory in it is already filled in. */
  public static final String JOB_SPEC = WorkerEnv.JOB_SPEC_FILE;
  /** The shaded application jar, on a real cluster. */
  public static final String APP_JAR = "edl.jar";
  /**
   * The client's effective configuration, only on the embedded cluster (whose addresses are
   * ephemeral), written under each of these names; the containers read exactly these files
   * ({@link ShippedConfiguration}).
   */
  public static final java.util.List<String> CLUSTER_CONF = ShippedConfiguration.FILES;
  /**
   * The job's secret, mode 0600, for a later {@code edl status|scale-out|...} by the submitting
   * user: the containers get the secret in their credentials, so this file is never localised.
   */
  public static final String JOB_SECRET = "job.secret";
  /**
   * Subdirectory where workers keep the parsed binary copy of a text data set
   * ({@code org.edl.worker.data.DatasetCache}); a directory, so it is not localised.
   */
  public static final String DATASET_COPY_DIR = "dataset";
  /**
   * Under {@code --torchrun}, the launcher each worker container runs (torch's elastic agent) and
   * the AM its rendezvous store with; shipped from this jar's resources.
   */
  public static final String TORCHRUN_LAUNCHER = "edl_torchrun.py";
  /** Main class of the AM container. */
  public static final String AM_MAIN_CLASS = "org.edl.am.ApplicationMaster";

  private StagingLayout() {}

  /** Whether a user's file (a script) would take the name of one of the job's own files. */
  public static boolean reserved(String name) {
    return name.equals(JOB_SPEC) || name.equals(APP_JAR) || name.equals(JOB_SECRET) || name.equals(DATASET_COPY_DIR)
        || name.equals(org.edl.job.Script.ENV_DIR) || name.equals(TORCHRUN_LAUNCHER) || CLUSTER_CONF.contains(name);
  }

  /** {@link #TORCHRUN_LAUNCHER}'s text, from this jar. */
  public static java.io.InputStream torchrunLauncher() throws IOException {
    java.io.InputStream in = StagingLayout.class.getResourceAsStream(TORCHRUN_LAUNCHER);
    if (in == null) {
      throw new IOException(TORCHRUN_LAUNCHER + " is missing from the class path beside " + StagingLayout.class);
    }
    return in;
  }

  /** {@code .edl/<appId>} under the user's home directory. */
  public static String relativeDir(String appId) {
    return ".edl/" + appId;
  }

  /**
   * A worker's resources: {@link #localResources}, and a script's Python environment as an archive
   * YARN unpacks into {@link org.edl.job.Script#ENV_DIR}, private to the user, so the node unpacks it
   * once for all of the user's jobs with the same archive.
   */
  public static Map<String, LocalResource> workerResources(URI stagingDir, org.edl.job.Script script,
      Configuration conf) throws IOException {
    Map<String, LocalResource> resources = localResources(stagingDir, conf);
    if (!script.pythonEnv().isEmpty()) {
      Path env = new Path(script.pythonEnv());
      FileSystem fs = env.getFileSystem(conf);
      FileStatus f = fs.getFileStatus(env);
      resources.put(org.edl.job.Script.ENV_DIR, LocalResource.newInstance(URL.fromPath(fs.makeQualified(env)),
          LocalResourceType.ARCHIVE, LocalResourceVisibility.PRIVATE, f.getLen(), f.getModificationTime()));
    }
    return resources;
  }

  /** Every file of the staging directory but the secret, localised under its own name. */
  public static Map<String, LocalResource> localResources(URI stagingDir, Configuration conf)
      throws IOException {
    FileSystem fs = FileSystem.get(stagingDir, conf);
    Map<String, LocalResource> resources = new HashMap<>();
    for (FileStatus f : fs.listStatus(new Path(stagingDir))) {
      if (f.isFile() && !JOB_SECRET.equals(f.getPath().getName())) {
        resources.put(f.getPath().getName(), LocalResource.newInstance(
            URL.fromPath(fs.makeQualified(f.getPath())), LocalResourceType.FILE,
            LocalResourceVisibility.APPLICATION, f.getLen(), f.getModificationTime()));
      }
    }
    return resources;
  }
}
