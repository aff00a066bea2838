package org.edl.scheduler.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Philly CSV of the Pollux artifact: {@code timestamp,duration,num_gpus,gpu_time,cluster}, and
 * optionally {@code model} or {@code application} (the Pollux workload files' name for it).
 * Columns are found by name, so their order does not matter; blank lines are ignored.
 */
public final class PhillyCsvReader {
  private static final Logger LOG = LoggerFactory.getLogger(PhillyCsvReader.class);
  private final boolean skipBad;

  public PhillyCsvReader(boolean skipBad) {
    this.skipBad = skipBad;
  }

  public Trace read(Path file) throws IOException {
    String name = file.toString();
    List<TraceJob> jobs = new ArrayList<>();
    int skipped = 0;
    try (BufferedReader in = Files.newBufferedReader(file)) {
      String header = in.readLine();
      if (header == null) {
        throw new TraceFormatException(name, 1, "header", "", "empty file");
      }
      Map<String, Integer> col = new HashMap<>();
      String[] names = header.split(",", -1);
      for (int i = 0; i < names.length; i++) {
        col.put(names[i].trim(), i);
      }
      for (String required : List.of("timestamp", "duration", "num_gpus", "cluster")) {
        if (!col.containsKey(required)) {
          throw new TraceFormatException(name, 1, required, header, "header lacks this column");
        }
      }
      int ts = col.get("timestamp");
      int dur = col.get("duration");
      int gpus = col.get("num_gpus");
      int user = col.get("cluster");
      int model = col.getOrDefault("model", col.getOrDefault("application", -1));
      String line;
      long lineNo = 1;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        try {
          String[] f = line.split(",", -1);
          if (f.length < names.length) {
            throw new TraceFormatException(name, lineNo, names[Math.min(f.length, names.length - 1)], "",
                "line has " + f.length + " fields, the header " + names.length);
          }
          long submit = TraceReaders.parseTime(name, lineNo, "timestamp", f[ts]);
          double d = number(name, lineNo, "duration", f[dur]);
          if (d < 0) {
            throw new TraceFormatException(name, lineNo, "duration", f[dur], "negative");
          }
          double g = number(name, lineNo, "num_gpus", f[gpus]);
          if (g < 1 || g != Math.rint(g)) {
            throw new TraceFormatException(name, lineNo, "num_gpus", f[gpus], "not a whole number >= 1");
          }
          String u = f[user].trim();
          if (u.isEmpty()) {
            throw new TraceFormatException(name, lineNo, "cluster", f[user], "empty");
          }
          String m = model >= 0 && !f[model].isBlank() ? f[model].trim() : null;
          jobs.add(new TraceJob(jobs.size(), submit, d, (int) g, u, m));
        } catch (TraceFormatException e) {
          if (!skipBad) {
            throw e;
          }
          skipped++;
          LOG.debug("skipped: {}", e.getMessage());
        }
      }
    }
    return new Trace(name, sortBySubmit(jobs), skipped, 0);
  }

  static List<TraceJob> sortBySubmit(List<TraceJob> jobs) {
    List<TraceJob> sorted = new ArrayList<>(jobs);
    sorted.sort(Comparator.comparingLong(TraceJob::submitEpochS).thenComparingLong(TraceJob::id));
    List<TraceJob> renumbered = new ArrayList<>(sorted.size());
    for (TraceJob j : sorted) {
      renumbered.add(new TraceJob(renumbered.size(), j.submitEpochS(), j.durationS(), j.gpus(), j.user(), j.model()));
    }
    return renumbered;
  }

  private static double number(String file, long line, String field, String value) {
    try {
      double v = Double.parseDouble(value.trim());
      if (!Double.isFinite(v)) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new TraceFormatException(file, line, field, value, "not a number");
    }
  }
}
