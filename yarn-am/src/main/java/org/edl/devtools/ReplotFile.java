package org.edl.devtools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.edl.job.InvalidInputException;

/** A benchmark's {@code --replot} CSV: a missing or foreign file is the user's mistake, one line and exit 2. */
final class ReplotFile {
  /** Reads a benchmark's CSV. */
  @FunctionalInterface
  interface Reader<T> {
    T read(Path csv) throws IOException;
  }

  private ReplotFile() {}

  static <T> T read(Path csv, Reader<T> reader) {
    if (!Files.isRegularFile(csv)) {
      throw new InvalidInputException("--replot", csv, "no such file");
    }
    try {
      return reader.read(csv);
    } catch (IOException e) {
      throw new InvalidInputException("--replot", csv, e.getMessage());
    }
  }
}
