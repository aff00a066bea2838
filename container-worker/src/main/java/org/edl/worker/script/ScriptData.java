package org.edl.worker.script;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.edl.worker.data.SyntheticSpec;

/**
 * A script job's {@code --data}: the worker copies the file (HDFS or any Hadoop file system, with
 * the job's tokens) into its working directory before it starts the script, which finds it in
 * {@value #ENV}. The script reads it as it likes; no Hadoop client is needed in Python.
 */
public final class ScriptData {
  /** The environment variable naming the local copy. */
  public static final String ENV = "EDL_DATA";

  private ScriptData() {}

  /** The local copy of {@code source} in {@code dir}; empty when the job names no data. */
  public static Optional<Path> fetch(String source, Path dir, Configuration conf) throws IOException {
    if (source == null || source.isBlank() || SyntheticSpec.isSynthetic(source)) {
      return Optional.empty();
    }
    org.apache.hadoop.fs.Path remote = new org.apache.hadoop.fs.Path(source);
    Path local = dir.resolve("edl-data").resolve(remote.getName());
    try {
      FileSystem fs = remote.getFileSystem(conf);
      fs.copyToLocalFile(false, remote, new org.apache.hadoop.fs.Path(local.toUri()), true);
    } catch (IOException e) {
      throw new IOException("data=" + source + ": cannot copy it for the script: " + e.getMessage(), e);
    }
    return Optional.of(local);
  }
}
