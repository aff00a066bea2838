package org.edl.worker.checkpoint;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Every checkpoint under a directory (periodic ones in {@code checkpoints/periodic}, stop-resume
 * ones in {@code checkpoints/restart-<k>}), newest first: what {@code edl checkpoints} prints
 * (each verified against its checksums) and the job page lists (read, not verified).
 */
public final class CheckpointCatalog {
  private static final Pattern NAME = Pattern.compile(Pattern.quote(Checkpoint.PREFIX) + "\\d{20}");
  /** Deep enough for {@code <output>/checkpoints/<kind>/ckpt-*}. */
  private static final int DEPTH = 3;

  /**
   * One checkpoint as listed. {@code meta} is empty when it cannot be read; {@code problem} is
   * empty when it verifies.
   */
  public record Entry(Path path, Optional<CheckpointMeta> meta, long bytes, Instant time, Optional<String> problem) {
    public boolean verifies() {
      return problem.isEmpty();
    }

    /** Steps done before it (its next step); from the name when the meta-data is unreadable. */
    public long step() {
      return meta.map(CheckpointMeta::nextStep).orElseGet(() -> Long.parseLong(path.getName()
          .substring(Checkpoint.PREFIX.length())));
    }
  }

  private CheckpointCatalog() {}

  /** Every checkpoint under {@code directory}, newest first, each verified against its checksums. */
  public static List<Entry> list(Configuration conf, Path directory) throws IOException {
    return list(conf, directory, true);
  }

  /**
   * Every checkpoint under {@code directory}, newest first; {@code verify} false reads only the
   * marker and meta-data of each, not the model (a problem then means those did not read).
   */
  public static List<Entry> list(Configuration conf, Path directory, boolean verify) throws IOException {
    FileSystem fs = directory.getFileSystem(conf);
    List<Path> found = new ArrayList<>();
    collect(fs, fs.makeQualified(directory), 0, found);
    List<Entry> entries = new ArrayList<>();
    for (Path p : found) {
      entry(conf, fs, p, verify).ifPresent(entries::add);
    }
    entries.sort(Comparator.comparing(Entry::time).thenComparing(Entry::step).reversed());
    return entries;
  }

  private static void collect(FileSystem fs, Path dir, int depth, List<Path> found) throws IOException {
    if (NAME.matcher(dir.getName()).matches()) {
      found.add(dir);
      return;
    }
    if (depth >= DEPTH) {
      return;
    }
    FileStatus[] children;
    try {
      children = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return;
    }
    for (FileStatus s : children) {
      // Hidden: a write in progress (or one that crashed) is no checkpoint.
      if (s.isDirectory() && !s.getPath().getName().startsWith(".")) {
        collect(fs, s.getPath(), depth + 1, found);
      }
    }
  }

  /** Empty when the checkpoint went while it was read: a running job deletes its oldest ones. */
  private static Optional<Entry> entry(Configuration conf, FileSystem fs, Path p, boolean verify) throws IOException {
    long bytes;
    Instant modified;
    try {
      bytes = fs.getContentSummary(p).getLength();
      modified = Instant.ofEpochMilli(fs.getFileStatus(p).getModificationTime());
    } catch (FileNotFoundException gone) {
      return Optional.empty();
    }
    Checkpoint c;
    try {
      c = Checkpoint.read(conf, p.toString());
    } catch (IOException e) {
      if (!fs.exists(p)) {
        return Optional.empty();
      }
      return Optional.of(new Entry(p, Optional.empty(), bytes, modified, Optional.of(e.getMessage())));
    }
    Optional<String> problem = Optional.empty();
    try {
      if (verify) {
        c.verify();
      }
    } catch (IOException e) {
      problem = Optional.of(e.getMessage());
    }
    return Optional.of(new Entry(p, Optional.of(c.meta()), bytes, c.meta().writtenAt(), problem));
  }

  /** The table {@code edl checkpoints} prints. */
  public static String table(Path directory, List<Entry> entries) {
    if (entries.isEmpty()) {
      return "no checkpoints under " + directory + "\n";
    }
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-10s %-24s %10s %7s %-8s %s%n",
        "STEP", "WRITTEN", "SIZE", "WORKERS", "VERIFIES", "PATH"));
    for (Entry e : entries) {
      b.append(String.format(Locale.ROOT, "%-10d %-24s %10s %7s %-8s %s%n", e.step(), e.time(), size(e.bytes()),
          e.meta().map(m -> Integer.toString(m.workers())).orElse("-"), e.verifies() ? "yes" : "NO", e.path()));
      e.problem().ifPresent(p -> b.append("    ").append(p).append('\n'));
    }
    return b.toString();
  }

  public static String size(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
