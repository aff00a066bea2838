package org.edl.scheduler.sim;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Philly CSV of the Pollux artifact: {@code timestamp,duration,num_gpus,gpu_time,cluster}, and
 * optionally {@code model} or {@code application} (the Pollux workload files' name for it).
 * Columns are found by name, so their order does not matter; blank lines are ignored; read with
 * Commons CSV ({@link CsvRows}), so a quoted field may hold a comma.
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
    try (CsvRows csv = CsvRows.open(file)) {
      List<String> names = csv.header();
      for (String required : List.of("timestamp", "duration", "num_gpus", "cluster")) {
        if (csv.column(required) < 0) {
          throw new TraceFormatException(name, 1, required, csv.headerLine(), "header lacks this column");
        }
      }
      int ts = csv.column("timestamp");
      int dur = csv.column("duration");
      int gpus = csv.column("num_gpus");
      int user = csv.column("cluster");
      int model = csv.column("model") >= 0 ? csv.column("model") : csv.column("application");
      for (CsvRows.Row f = csv.next(); f != null; f = csv.next()) {
        long lineNo = f.line();
        try {
          if (f.size() < names.size()) {
            throw new TraceFormatException(name, lineNo, names.get(Math.min(f.size(), names.size() - 1)).trim(), "",
                "line has " + f.size() + " fields, the header " + names.size());
          }
          long submit = TraceReaders.parseTime(name, lineNo, "timestamp", f.get(ts));
          double d = number(name, lineNo, "duration", f.get(dur));
          if (d < 0) {
            throw new TraceFormatException(name, lineNo, "duration", f.get(dur), "negative");
          }
          double g = number(name, lineNo, "num_gpus", f.get(gpus));
          if (g < 1 || g != Math.rint(g)) {
            throw new TraceFormatException(name, lineNo, "num_gpus", f.get(gpus), "not a whole number >= 1");
          }
          String u = f.get(user).trim();
          if (u.isEmpty()) {
            throw new TraceFormatException(name, lineNo, "cluster", f.get(user), "empty");
          }
          String m = model >= 0 && !f.get(model).isBlank() ? f.get(model).trim() : null;
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
