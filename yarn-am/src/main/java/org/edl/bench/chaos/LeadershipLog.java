package org.edl.bench.chaos;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.bench.BenchCsv;
import org.edl.job.ModelOutput;
import org.edl.worker.runtime.Timeline;

/**
 * When each leadership of a finished job began and what the members took from each, as the
 * workers' timelines tell it ({@code <output>/timeline/<container>.csv}: {@code lead} rows with
 * the epoch a worker claimed, {@code order} rows with the epoch of every order a worker went
 * by, when it received it), and which leadership wrote the model. Wall-clock milliseconds: the
 * processes share one machine, so they share one clock.
 *
 * <p>A worker killed with SIGKILL writes no timeline: its own leadership's start is then
 * unknown, which can only hide an overlap, never invent one.
 */
public record LeadershipLog(Map<Long, Long> claimedAtMs, List<Act> acts, long outputEpoch, long outputAtMs) {

  /** One order a member received from leadership {@code epoch} at {@code atMs}. */
  public record Act(long epoch, long atMs, String what) {}

  /** Orders received within this long after a newer epoch began are not counted: a reply already on its way. */
  static final long SLACK_MS = 50;

  public LeadershipLog {
    claimedAtMs = Map.copyOf(claimedAtMs);
    acts = List.copyOf(acts);
  }

  /** Reads the timelines and the model's metrics; what is missing is simply not there. */
  public static LeadershipLog read(Configuration conf, String outputDir) throws IOException {
    Map<Long, Long> claimed = new TreeMap<>();
    List<Act> acts = new ArrayList<>();
    Path dir = new Path(outputDir, Timeline.DIRECTORY);
    FileSystem fs = dir.getFileSystem(conf);
    FileStatus[] files;
    try {
      files = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      files = new FileStatus[0];
    }
    for (FileStatus f : files) {
      String worker = f.getPath().getName().replace(".csv", "");
      List<BenchCsv.Row> rows;
      try (Reader r = new InputStreamReader(fs.open(f.getPath()), StandardCharsets.UTF_8)) {
        rows = BenchCsv.read(r, f.getPath().toString());
      }
      for (BenchCsv.Row row : rows) {
        if (row.size() < 5) {
          continue;
        }
        String detail = String.join(",", row.fields().subList(4, row.size()));
        if (row.get(0).equals("lead")) {
          claimed.merge(epochIn(detail), Long.parseLong(row.get(2)), Math::min);
        } else if (row.get(0).equals("order")) {
          acts.add(new Act(epochIn(detail), Long.parseLong(row.get(2)), worker + " received " + detail));
        }
      }
    }
    long outputEpoch = -1;
    long outputAt = -1;
    try {
      outputEpoch = ModelOutput.readMetrics(conf, outputDir).leaderEpoch();
      outputAt = fs.getFileStatus(new Path(outputDir, ModelOutput.MODEL_FILE)).getModificationTime();
    } catch (FileNotFoundException e) {
      // no output: the model check says so
    }
    return new LeadershipLog(claimed, acts, outputEpoch, outputAt);
  }

  /**
   * Every act of a leadership after a newer one had begun: an order a member went by although a
   * newer epoch already led, or a model written by an epoch that was no longer the newest.
   */
  public List<String> overlaps() {
    List<String> found = new ArrayList<>();
    for (Act a : acts) {
      newerBefore(a.epoch(), a.atMs()).ifPresent(newer -> found.add(a.what() + " at " + a.atMs()
          + " ms, after epoch " + newer.getKey() + " began at " + newer.getValue() + " ms"));
    }
    if (outputEpoch >= 0) {
      newerBefore(outputEpoch, outputAtMs).ifPresent(newer -> found.add("the model of epoch " + outputEpoch
          + " written at " + outputAtMs + " ms, after epoch " + newer.getKey() + " began at " + newer.getValue()
          + " ms"));
    }
    return found;
  }

  private java.util.Optional<Map.Entry<Long, Long>> newerBefore(long epoch, long atMs) {
    return claimedAtMs.entrySet().stream().filter(e -> e.getKey() > epoch && e.getValue() + SLACK_MS < atMs)
        .findFirst();
  }

  private static long epochIn(String detail) {
    String[] words = detail.trim().split(" ");
    for (int i = 0; i + 1 < words.length; i++) {
      if (words[i].equals("epoch")) {
        return Long.parseLong(words[i + 1]);
      }
    }
    return -1;
  }
}
