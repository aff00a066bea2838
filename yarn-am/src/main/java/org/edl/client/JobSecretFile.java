package org.edl.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.edl.am.StagingLayout;
import org.edl.job.JobSecret;

/**
 * The job secret as a file in the staging directory, so that a later {@code edl status} or
 * {@code edl scale-out} by the submitting user can talk to the AM. Like Hadoop's job token
 * files it is readable by its owner only (and, as any HDFS file, by the superuser); it lives as
 * long as the staging directory.
 */
public final class JobSecretFile {
  /** Owner read/write only; set explicitly after creation so the client's umask cannot widen it. */
  public static final FsPermission PERMISSION = new FsPermission((short) 0600);

  private JobSecretFile() {}

  public static Path in(Path stagingDir) {
    return new Path(stagingDir, StagingLayout.JOB_SECRET);
  }

  public static void write(FileSystem fs, Path stagingDir, JobSecret secret) throws IOException {
    // FileSystem.create(fs, path, permission) creates and then sets the permission, as Hadoop's
    // own JobSubmitter does for its job files.
    try (OutputStream out = FileSystem.create(fs, in(stagingDir), PERMISSION)) {
      out.write(secret.bytes());
    }
  }

  /**
   * @throws IOException the file is missing ({@link java.io.FileNotFoundException}), not
   *                     readable by this user, or not a secret
   */
  public static JobSecret read(FileSystem fs, Path stagingDir) throws IOException {
    Path file = in(stagingDir);
    byte[] bytes;
    try (InputStream in = fs.open(file)) {
      bytes = in.readNBytes(4 * JobSecret.LENGTH);
    }
    try {
      return JobSecret.of(bytes);
    } catch (IllegalArgumentException e) {
      throw new IOException(file + " is not a job secret (" + bytes.length + " bytes)", e);
    }
  }
}
