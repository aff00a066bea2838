package org.edl.client;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.am.StagingLayout;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;

/**
 * Where {@code edl checkpoints} looks: an application id is resolved to its output directory
 * through the job specification in its staging directory, else the default output directory;
 * {@link org.edl.worker.checkpoint.CheckpointCatalog} lists what is there.
 */
public final class CheckpointListing {
  private CheckpointListing() {}

  /** The directory to list for {@code appIdOrDir}: itself, or an application's output directory. */
  public static Path resolve(Configuration conf, String appIdOrDir) throws IOException {
    if (!appIdOrDir.startsWith("application_")) {
      Path p = new Path(appIdOrDir);
      FileSystem fs = p.getFileSystem(conf);
      p = fs.makeQualified(p);
      if (!fs.exists(p)) {
        throw new InvalidInputException("directory", appIdOrDir, "does not exist");
      }
      return p;
    }
    String appId = JobControlLocator.parse(appIdOrDir).toString();
    FileSystem fs = FileSystem.get(conf);
    Path staging = fs.makeQualified(new Path(fs.getHomeDirectory(), StagingLayout.relativeDir(appId)));
    Path specFile = new Path(staging, StagingLayout.JOB_SPEC);
    if (fs.exists(specFile)) {
      try (InputStream in = fs.open(specFile)) {
        return new Path(JobSpec.read(in).output());
      }
    }
    // The staging directory goes when the job ends; a job submitted without --output wrote here.
    Path defaultOutput = fs.makeQualified(new Path(fs.getHomeDirectory(), "edl/" + appId));
    if (fs.exists(defaultOutput)) {
      return defaultOutput;
    }
    throw new InvalidInputException("application", appIdOrDir, "cannot find the job's output directory (no "
        + specFile + ", no " + defaultOutput + "): pass the job's output directory (its --output) instead");
  }

}
