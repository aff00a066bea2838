package org.edl.worker.data;

import java.util.Locale;
import org.edl.job.InvalidInputException;

/** The file formats a user's data set may come in, and the choice behind {@code --format auto}. */
public enum DataFormat {
  LIBSVM,
  CSV;

  /**
   * {@code libsvm} or {@code csv} as given, or for {@code auto} the format the path's extension
   * names ({@code .libsvm}, {@code .svm}, {@code .txt}: LIBSVM; {@code .csv}: CSV).
   */
  public static DataFormat resolve(String format, String path) {
    String f = format == null ? "auto" : format.strip().toLowerCase(Locale.ROOT);
    switch (f) {
      case "libsvm":
        return LIBSVM;
      case "csv":
        return CSV;
      case "auto":
        break;
      default:
        throw new InvalidInputException("format", format, "unknown format; choose one of auto, csv, libsvm");
    }
    String name = path.toLowerCase(Locale.ROOT);
    int slash = name.lastIndexOf('/');
    name = name.substring(slash + 1);
    if (name.endsWith(".libsvm") || name.endsWith(".svm") || name.endsWith(".txt")) {
      return LIBSVM;
    }
    if (name.endsWith(".csv")) {
      return CSV;
    }
    throw new InvalidInputException("data", path,
        "cannot tell the format from the file name; give --format libsvm or --format csv");
  }
}
