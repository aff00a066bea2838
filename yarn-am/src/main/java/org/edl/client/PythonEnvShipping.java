package org.edl.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.job.InvalidInputException;

/**
 * A script job's {@code --python-env}, put where YARN can localise it: an archive on a cluster file
 * system ({@code hdfs://...}) is used where it is; a local one goes once to the user's
 * {@link #DIR} on the cluster's file system, named by its content, so that later jobs with the same
 * archive find it there and each node's private cache (keyed by path and time) unpacks it once.
 */
final class PythonEnvShipping {
  /** Under the user's home directory on the cluster's file system. */
  static final String DIR = ".edl/python-envs";

  private PythonEnvShipping() {}

  /** The archive's fully qualified URI on a cluster file system, uploading a local one if needed. */
  static String ship(FileSystem fs, Configuration conf, String env) throws IOException {
    URI uri = URI.create(env);
    if (uri.getScheme() != null && !"file".equals(uri.getScheme())) {
      Path remote = new Path(uri);
      FileSystem where = remote.getFileSystem(conf);
      if (!where.exists(remote) || !where.getFileStatus(remote).isFile()) {
        throw new InvalidInputException("python-env", env, "no such archive");
      }
      return where.makeQualified(remote).toString();
    }
    java.nio.file.Path local = java.nio.file.Path.of(uri.getScheme() == null ? env : uri.getPath());
    if (!Files.isRegularFile(local) || !Files.isReadable(local)) {
      throw new InvalidInputException("python-env", env, "not a readable file");
    }
    Path target = new Path(new Path(fs.getHomeDirectory(), DIR), contentName(local));
    FileStatus there = fs.exists(target) ? fs.getFileStatus(target) : null;
    if (there == null || there.getLen() != Files.size(local)) {
      fs.mkdirs(target.getParent());
      // Whole or not at all: a job submitted beside this one may find the name already.
      Path tmp = new Path(target.getParent(), "." + target.getName() + "." + System.nanoTime() + ".tmp");
      fs.copyFromLocalFile(false, true, new Path(local.toAbsolutePath().toUri()), tmp);
      fs.delete(target, false);
      if (!fs.rename(tmp, target)) {
        fs.delete(tmp, false);
        throw new IOException("could not move the uploaded " + local + " to " + target);
      }
    }
    return fs.makeQualified(target).toString();
  }

  /** The file name prefixed with the first 16 hex digits of its SHA-256. */
  static String contentName(java.nio.file.Path local) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(local)) {
      for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
        sha.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(sha.digest()).substring(0, 16) + "-" + local.getFileName();
  }
}
