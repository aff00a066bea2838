package org.edl.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
 * analysis: the rows of all containers, keyed by container id.
 */
public record Timelines(Map<String, List<Row>> byWorker) {

  /** One timeline row; times are wall-clock milliseconds. */
  public record Row(String event, long step, long startMs, long endMs, String detail) {
    static Row parse(String line, String where) {
      String[] f = line.split(",", 5);
      if (f.length < 4) {
        throw new IllegalArgumentException(where + ": expected " + Timeline.HEADER + " but got: " + line);
      }
      return new Row(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
          f.length > 4 ? f[4] : "");
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
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(f.getPath()), StandardCharsets.UTF_8))) {
        String line = r.readLine(); // header
        int n = 1;
        while ((line = r.readLine()) != null) {
          n++;
          if (!line.isBlank()) {
            list.add(Row.parse(line, f.getPath() + ":" + n));
          }
        }
      }
      rows.put(name.substring(0, name.length() - ".csv".length()), Collections.unmodifiableList(list));
    }
    return new Timelines(Collections.unmodifiableMap(rows));
  }

  /** The first row of {@code event} in a worker's timeline, or null. */
  public static Row first(List<Row> rows, String event) {
    return rows.stream().filter(r -> r.event().equals(event)).findFirst().orElse(null);
  }
}
