package org.edl.worker.checkpoint;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.edl.job.TemporaryName;
import org.edl.job.WriterEpoch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a checkpoint is written so that nobody ever reads half of one: into a hidden temporary
 * directory named for its writer's epoch, the marker last, then renamed into place only while
 * the writer's leadership is still the newest, and taken back if it was superseded during the
 * rename. See {@link Checkpoint} for the layout.
 */
final class CheckpointCommit {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpoint.class);

  private CheckpointCommit() {}

  static Checkpoint write(Configuration conf, String directory, CheckpointMeta meta,
      Checkpoint.Body modelBody, WriterEpoch writer, Checkpoint.Commit commit) throws IOException {
    Path root = new Path(directory);
    FileSystem fs = root.getFileSystem(conf);
    root = fs.makeQualified(root);
    Path target = new Path(root, Checkpoint.nameFor(meta.nextStep()));
    if (fs.exists(target)) {
      throw new FileAlreadyExistsException("checkpoint " + target + " already exists");
    }
    Path tmp = new Path(root, TemporaryName.of(target.getName(), writer));
    if (!fs.mkdirs(tmp)) {
      throw new IOException("could not create " + tmp);
    }
    try {
      Checkpoint.Sum modelSum = Checkpoint.writeFile(fs, new Path(tmp, Checkpoint.MODEL_FILE), modelBody);
      byte[] metaBytes = meta.toText().getBytes(StandardCharsets.UTF_8);
      Checkpoint.Sum metaSum = Checkpoint.writeFile(fs, new Path(tmp, Checkpoint.META_FILE), out -> out.write(metaBytes));
      String marker = Checkpoint.MODEL_FILE + "=" + modelSum.text() + "\n" + Checkpoint.META_FILE + "=" + metaSum.text()
          + "\n";
      Checkpoint.writeFile(fs, new Path(tmp, Checkpoint.COMPLETE_MARKER), out -> out.write(marker.getBytes(StandardCharsets.UTF_8)));
      if (!commit.allowed()) {
        throw new IOException("checkpoint " + target + " not committed: leader epoch " + meta.leaderEpoch()
            + " is not the newest any more");
      }
      rename(fs, tmp, target, meta);
      // A writer paused past its session between the check and the rename must not leave a
      // checkpoint in place: asked again (the check above is trusted for a second at most, so a
      // pause that long asks ZooKeeper), it takes the checkpoint back before anyone registers it.
      if (!commit.allowed()) {
        withdraw(fs, target);
        throw new IOException("checkpoint " + target + " withdrawn: leader epoch " + meta.leaderEpoch()
            + " was superseded while it was renamed into place");
      }
      LOG.info("Checkpoint {} written: step {}, {} workers, {} bytes of model", target, meta.nextStep(),
          meta.workers(), modelSum.length());
      return new Checkpoint(fs, target, meta, modelSum);
    } catch (IOException | RuntimeException e) {
      try {
        fs.delete(tmp, true);
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /**
   * Renames the complete temporary into place, never onto or into an existing directory (a plain
   * rename would move it inside one that appeared meanwhile).
   *
   * @throws FileAlreadyExistsException another write of the same step was put in place first
   * @throws FileNotFoundException      the temporary is gone: a newer leadership removed it, so
   *                                    this writer's epoch is fenced
   */
  private static void rename(FileSystem fs, Path tmp, Path target, CheckpointMeta meta) throws IOException {
    try {
      FileUtil.rename(fs, tmp, target, Options.Rename.NONE);
    } catch (FileNotFoundException e) {
      if (fs.exists(tmp)) {
        throw e;
      }
      throw new IOException("checkpoint " + target + " not committed: its temporary " + tmp
          + " was removed by a leadership newer than epoch " + meta.leaderEpoch(), e);
    }
  }

  /**
   * Takes back a checkpoint its superseded writer put in place. A failure is only a WARN: what
   * stays is a complete checkpoint no successor registered, as a late rename would have left.
   */
  private static void withdraw(FileSystem fs, Path target) {
    try {
      if (!fs.delete(target, true)) {
        LOG.warn("Could not withdraw checkpoint {}: delete said no", target);
      }
    } catch (IOException e) {
      LOG.warn("Could not withdraw checkpoint {}: {}", target, e.toString());
    }
  }
}
