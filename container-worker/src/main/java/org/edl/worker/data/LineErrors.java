package org.edl.worker.data;

import org.edl.job.InvalidInputException;

/** Builds the one error format for a bad line: file, line number, field number and its text. */
final class LineErrors {
  private static final int MAX_SHOWN = 40;

  private LineErrors() {}

  static InvalidInputException field(String source, long line, int field, String text, String problem) {
    return new InvalidInputException("data", source,
        "line " + line + ", field " + field + " ('" + shorten(text) + "'): " + problem);
  }

  static InvalidInputException line(String source, long line, String problem) {
    return new InvalidInputException("data", source, "line " + line + ": " + problem);
  }

  static InvalidInputException empty(String source) {
    return new InvalidInputException("data", source,
        "holds no samples (only blank lines, comments or a header)");
  }

  private static String shorten(String text) {
    return text.length() <= MAX_SHOWN ? text : text.substring(0, MAX_SHOWN) + "...";
  }
}
