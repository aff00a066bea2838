package org.edl.worker.coord;

/**
 * The leader refuses a call: {@code field}={@code value} and why. The {@link Kind} tells the
 * caller what may help: nothing (a bad request), asking the current leader instead, asking again
 * later, or nothing ever again (the caller was declared failed).
 */
public final class Refused extends Exception {
  private static final long serialVersionUID = 1L;

  public enum Kind {
    /** A request that cannot be granted as it is. */
    INVALID,
    /** This coordinator does not lead the job (any more, or yet): ask the leader. */
    NOT_LEADER,
    /** The caller was declared failed and is fenced out of the job. */
    FENCED,
    /** Not now (a recovery is being decided): ask again shortly. */
    RETRY
  }

  private final Kind kind;
  private final String field;
  private final String value;

  public Refused(Kind kind, String field, String value, String problem) {
    super(field + "=" + value + ": " + problem);
    this.kind = kind;
    this.field = field;
    this.value = value;
  }

  public static Refused invalid(String field, String value, String problem) {
    return new Refused(Kind.INVALID, field, value, problem);
  }

  public Kind kind() {
    return kind;
  }

  public String field() {
    return field;
  }

  public String value() {
    return value;
  }
}
