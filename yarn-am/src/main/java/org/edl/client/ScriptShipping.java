package org.edl.client;

import java.io.IOException;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.am.StagingLayout;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.Script;

/**
 * A script job's own files, put where its workers get them: the script into the staging
 * directory (every worker's working directory gets it under its own name, and a torchrun script
 * its launcher beside it, {@link StagingLayout#TORCHRUN_LAUNCHER}), and its
 * {@code --python-env} where YARN localises it from ({@link PythonEnvShipping}). The job file then
 * names them so.
 */
final class ScriptShipping {
  private ScriptShipping() {}

  /** The job with its script in {@code staging} and its environment on the cluster. */
  static JobSpec ship(FileSystem fs, Configuration conf, Path staging, JobSpec spec) throws IOException {
    Script script = spec.script();
    java.nio.file.Path local = requireReadable(script);
    String name = local.getFileName().toString();
    if (StagingLayout.reserved(name)) {
      throw new InvalidInputException("script", script.file(), "the job's own files are named " + name
          + "; rename the script");
    }
    fs.copyFromLocalFile(new Path(local.toAbsolutePath().toUri()), new Path(staging, name));
    if (script.torchrun()) {
      try (java.io.InputStream in = StagingLayout.torchrunLauncher();
           java.io.OutputStream out = fs.create(new Path(staging, StagingLayout.TORCHRUN_LAUNCHER))) {
        in.transferTo(out);
      }
    }
    Script shipped = script.withFile(name);
    if (!script.pythonEnv().isEmpty()) {
      shipped = shipped.withPythonEnv(PythonEnvShipping.ship(fs, conf, script.pythonEnv()));
    }
    return spec.toBuilder().script(shipped).build();
  }

  /** The script's local file, checked before anything is submitted. */
  static java.nio.file.Path requireReadable(Script script) {
    java.nio.file.Path local = java.nio.file.Path.of(script.file());
    if (!Files.isRegularFile(local) || !Files.isReadable(local)) {
      throw new InvalidInputException("script", script.file(), "not a readable file");
    }
    return local;
  }
}
