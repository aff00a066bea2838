package org.edl.scheduler.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** Picks the reader by the file's content: a JSON array is a Philly cluster_job_log, else CSV. */
public final class TraceReaders {
  static final DateTimeFormatter PHILLY_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private TraceReaders() {}

  public static Trace read(Path file, boolean skipBad) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new TraceFormatException(file.toString(), 0, "trace", file.toString(), "no such file");
    }
    try (var in = TraceFiles.open(file)) {
      int c;
      do {
        c = in.read();
      } while (c != -1 && Character.isWhitespace(c));
      if (c == '[') {
        return new PhillyJobLogReader(skipBad).read(file);
      }
    }
    return new PhillyCsvReader(skipBad).read(file);
  }

  /** Philly's {@code yyyy-MM-dd HH:mm:ss}, taken as UTC; the error names where it came from. */
  static long parseTime(String file, long line, String field, String value) {
    try {
      return LocalDateTime.parse(value.trim(), PHILLY_TIME).toEpochSecond(ZoneOffset.UTC);
    } catch (DateTimeParseException | NullPointerException e) {
      throw new TraceFormatException(file, line, field, String.valueOf(value),
          "not a time of the form yyyy-MM-dd HH:mm:ss");
    }
  }
}
