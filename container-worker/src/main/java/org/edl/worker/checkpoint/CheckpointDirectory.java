package org.edl.worker.checkpoint;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.job.StaleTemporaries;
import org.edl.job.WriterEpoch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A directory of {@link Checkpoint}s (a job's {@code checkpoints/periodic}, a stop's
 * {@code restart-N}): its complete checkpoints oldest first, the newest that verifies, pruning
 * the old ones, and sweeping the temporaries fenced writers left.
 */
public final class CheckpointDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpoint.class);

  private CheckpointDirectory() {}

  /**
   * The newest checkpoint at {@code location} that reads and verifies (marker, meta-data and
   * model checksums): a damaged or partial newer one is reported (WARN naming it and why) and
   * skipped for the one before it. {@code location} may also be one checkpoint's own directory,
   * read strictly as {@link Checkpoint#read} does.
   *
   * @throws FileNotFoundException when nothing is there
   * @throws IOException           when no checkpoint there verifies; names each and why
   */
  public static Checkpoint readNewestValid(Configuration conf, String location) throws IOException {
    Path p = new Path(location);
    FileSystem fs = p.getFileSystem(conf);
    p = fs.makeQualified(p);
    if (!fs.exists(p)) {
      throw new FileNotFoundException("checkpoint " + p + " does not exist");
    }
    if (!fs.getFileStatus(p).isDirectory() || Checkpoint.isCheckpointDir(fs, p)) {
      Checkpoint c = Checkpoint.read(conf, location);
      c.verify();
      return c;
    }
    List<Path> all = list(fs, p);
    if (all.isEmpty()) {
      throw new FileNotFoundException("no checkpoint in " + p + " (no " + Checkpoint.PREFIX + "* directory)");
    }
    List<String> skipped = new ArrayList<>();
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        Checkpoint c = Checkpoint.readOne(fs, all.get(i));
        c.verify();
        if (!skipped.isEmpty()) {
          LOG.info("Using checkpoint {} after skipping {} damaged newer one(s)", c.path(), skipped.size());
        }
        return c;
      } catch (IOException e) {
        LOG.warn("Skipping checkpoint {}: {}", all.get(i), e.getMessage());
        skipped.add(e.getMessage());
      }
    }
    throw new IOException("no checkpoint in " + p + " verifies: " + String.join("; ", skipped));
  }

  /**
   * The newest checkpoint that verifies among {@code path} and the older ones beside it (lower
   * steps in the same directory): what consistent recovery can go back to when the newest was
   * damaged after it was written. Each one skipped is logged (WARN, why).
   *
   * @return empty when none verifies
   * @throws IOException when the directory cannot be listed
   */
  public static Optional<Checkpoint> newestValidUpTo(Configuration conf, String path) throws IOException {
    Path p = new Path(path);
    FileSystem fs = p.getFileSystem(conf);
    p = fs.makeQualified(p);
    String newest = p.getName();
    List<Path> candidates = new ArrayList<>(list(fs, p.getParent()).stream()
        .filter(c -> c.getName().compareTo(newest) <= 0).toList());
    for (int i = candidates.size() - 1; i >= 0; i--) {
      try {
        Checkpoint c = Checkpoint.readOne(fs, candidates.get(i));
        c.verify();
        return Optional.of(c);
      } catch (IOException e) {
        LOG.warn("Skipping checkpoint {}: {}", candidates.get(i), e.getMessage());
      }
    }
    return Optional.empty();
  }

  /** Deletes all but the newest {@code keep} checkpoints under {@code directory}; returns those deleted. */
  public static List<Path> prune(Configuration conf, String directory, int keep) throws IOException {
    Path p = new Path(directory);
    FileSystem fs = p.getFileSystem(conf);
    List<Path> all = list(fs, fs.makeQualified(p));
    List<Path> deleted = new ArrayList<>();
    // Only complete, renamed checkpoints are listed: a write in progress is never among them.
    for (Path old : all.subList(0, Math.max(0, all.size() - keep))) {
      if (fs.delete(old, true)) {
        deleted.add(old);
      }
    }
    return deleted;
  }

  /** The checkpoints under {@code directory}, oldest first; writes in progress are not listed. */
  public static List<Path> list(Configuration conf, String directory) throws IOException {
    Path p = new Path(directory);
    FileSystem fs = p.getFileSystem(conf);
    return list(fs, fs.makeQualified(p));
  }

  static List<Path> list(FileSystem fs, Path directory) throws IOException {
    List<Path> found = new ArrayList<>();
    for (FileStatus s : fs.listStatus(directory)) {
      if (s.isDirectory() && Checkpoint.NAME.matcher(s.getPath().getName()).matches()) {
        found.add(s.getPath());
      }
    }
    found.sort(Comparator.comparing(Path::getName));
    return found;
  }

  /**
   * Removes from {@code directory} the checkpoint temporaries that the leadership {@code sweeper}
   * knows will never be committed: an older epoch's of its own application at once, another
   * application's or an older build's once untouched for a day ({@link StaleTemporaries}). Its
   * own epoch's and newer ones' stay: they may be writes in progress.
   *
   * @return those removed
   */
  public static List<Path> removeStaleTemporaries(Configuration conf, String directory, WriterEpoch sweeper)
      throws IOException {
    Path p = new Path(directory);
    FileSystem fs = p.getFileSystem(conf);
    return StaleTemporaries.sweep(fs, fs.makeQualified(p), name -> Checkpoint.NAME.matcher(name).matches(), sweeper);
  }
}
