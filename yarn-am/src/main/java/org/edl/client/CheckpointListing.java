package org.edl.client;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
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
import org.edl.am.StagingLayout;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointMeta;

/**
 * {@code edl checkpoints}: every checkpoint under a directory (periodic ones in
 * {@code checkpoints/periodic}, stop-resume ones in {@code checkpoints/restart-<k>}), each read
 * and verified against its checksums, newest first. An application id is resolved to its
 * output directory through the job specification in its staging directory, else the default
 * output directory.
 */
public final class CheckpointListing {
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

  /** Every checkpoint under {@code directory}, newest first. */
  public static List<Entry> list(Configuration conf, Path directory) throws IOException {
    FileSystem fs = directory.getFileSystem(conf);
    List<Path> found = new ArrayList<>();
    collect(fs, fs.makeQualified(directory), 0, found);
    List<Entry> entries = new ArrayList<>();
    for (Path p : found) {
      entries.add(entry(conf, fs, p));
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

  private static Entry entry(Configuration conf, FileSystem fs, Path p) throws IOException {
    long bytes = fs.getContentSummary(p).getLength();
    Instant modified = Instant.ofEpochMilli(fs.getFileStatus(p).getModificationTime());
    Checkpoint c;
    try {
      c = Checkpoint.read(conf, p.toString());
    } catch (IOException e) {
      return new Entry(p, Optional.empty(), bytes, modified, Optional.of(e.getMessage()));
    }
    Optional<String> problem = Optional.empty();
    try {
      c.verify();
    } catch (IOException e) {
      problem = Optional.of(e.getMessage());
    }
    return new Entry(p, Optional.of(c.meta()), bytes, c.meta().writtenAt(), problem);
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

  static String size(long bytes) {
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
