package org.edl.job;


/**
 * Input a user can get wrong (a flag, a config key, a data line): the message names the field
 * and the value, so the CLI can print it as is and exit non-zero without a stack trace.
 */
public class InvalidInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String value;
  private final String problem;

  public InvalidInputException(String field, Object value, String problem) {
    super(field + "=" + value + ": " + problem);
    this.field = field;
    this.value = String.valueOf(value);
    this.problem = problem;
  }

  /** The same error for the same value under another name: a builder's field as its flag is typed. */
  public InvalidInputException renamed(String newField) {
    return new InvalidInputException(newField, value, problem);
  }

  public String field() {
    return field;
  }

  public String value() {
    return value;
  }
}
