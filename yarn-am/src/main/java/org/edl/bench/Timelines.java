package org.edl.bench;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.worker.runtime.Timeline;

/**
 * The timelines every worker container of one job wrote ({@link Timeline}), read back for
 * analysis: the rows of all containers, keyed by container id. A detail with a comma is quoted in
 * the file; one that was not (an older worker) is taken whole all the same.
 */
public record Timelines(Map<String, List<Row>> byWorker) {

  /** One timeline row; times are wall-clock milliseconds. */
  public record Row(String event, long step, long startMs, long endMs, String detail) {
    static Row parse(BenchCsv.Row f, String file) {
      if (f.size() < 4) {
        throw new IllegalArgumentException(file + ":" + f.line() + ": expected " + Timeline.HEADER + " but got: "
            + String.join(",", f.fields()));
      }
      try {
        return new Row(f.get(0), BenchCsv.whole(file, f, 1, "step"), BenchCsv.whole(file, f, 2, "start_ms"),
            BenchCsv.whole(file, f, 3, "end_ms"), f.size() > 4 ? String.join(",", f.fields().subList(4, f.size())) : "");
      } catch (IOException e) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
    }
  }

  /** The rows of one worker's timeline file, its header left out. */
  static List<BenchCsv.Row> records(FileSystem fs, Path file) throws IOException {
    try (Reader r = new InputStreamReader(fs.open(file), StandardCharsets.UTF_8)) {
      List<BenchCsv.Row> rows = BenchCsv.read(r, file.toString());
      return rows.isEmpty() ? rows : rows.subList(1, rows.size());
    }
  }

  /** Reads {@code <output>/timeline/*.csv}. */
  public static Timelines read(String output, Configuration conf) throws IOException {
    Path dir = new Path(output, Timeline.DIRECTORY);
    FileSystem fs = dir.getFileSystem(conf);
    Map<String, List<Row>> rows = new TreeMap<>();
    if (!fs.exists(dir)) {
      throw new IOException("no worker timelines in " + dir + " (did the workers end normally?)");
    }
    for (FileStatus f : fs.listStatus(dir)) {
      String name = f.getPath().getName();
      if (!name.endsWith(".csv")) {
        continue;
      }
      List<Row> list = new ArrayList<>();
      for (BenchCsv.Row record : records(fs, f.getPath())) {
        list.add(Row.parse(record, f.getPath().toString()));
      }
      rows.put(name.substring(0, name.length() - ".csv".length()), Collections.unmodifiableList(list));
    }
    return new Timelines(Collections.unmodifiableMap(rows));
  }

  /** Copies {@code <output>/timeline/*.csv} into the local folder {@code to}, for a closer look. */
  public static void copy(String output, Configuration conf, java.nio.file.Path to) throws IOException {
    Path dir = new Path(output, Timeline.DIRECTORY);
    FileSystem fs = dir.getFileSystem(conf);
    java.nio.file.Files.createDirectories(to);
    for (FileStatus f : fs.listStatus(dir)) {
      if (f.getPath().getName().endsWith(".csv")) {
        fs.copyToLocalFile(false, f.getPath(), new Path(to.resolve(f.getPath().getName()).toUri()), true);
      }
    }
  }

  /** The first row of {@code event} in a worker's timeline, or null. */
  public static Row first(List<Row> rows, String event) {
    return rows.stream().filter(r -> r.event().equals(event)).findFirst().orElse(null);
  }
}
