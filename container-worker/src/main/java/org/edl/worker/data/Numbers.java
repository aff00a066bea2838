package org.edl.worker.data;

/** Number parsing for data files: finite values only, no exceptions for control flow upstream. */
final class Numbers {
  private Numbers() {}

  /** The value, or NaN when the text is not a finite number (NaN itself is refused too). */
  static double parseFinite(String text) {
    if (text.isEmpty()) {
      return Double.NaN;
    }
    char c = text.charAt(text.length() - 1);
    // Double.parseDouble takes "1f" and "2d" as Java literals; a data file does not mean that.
    if (c == 'f' || c == 'F' || c == 'd' || c == 'D') {
      return Double.NaN;
    }
    try {
      double v = Double.parseDouble(text);
      return Double.isInfinite(v) ? Double.NaN : v;
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
