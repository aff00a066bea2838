package org.edl.scheduler.sim;

/**
 * A trace record the simulator cannot use. The message names the file, the line, the field and the
 * value, so the user can find and fix the record (or rerun with {@code --skip-bad}).
 */
public final class TraceFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String field;
  private final String value;

  public TraceFormatException(String file, long line, String field, String value, String problem) {
    super(file + ":" + line + ": field '" + field + "' = '" + value + "': " + problem);
    this.field = field;
    this.value = value;
  }

  public String field() {
    return field;
  }

  public String value() {
    return value;
  }
}
