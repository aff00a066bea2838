package org.edl.am;

/**
 * A change the fleet will not make, as the user's error it is: the field (flag or argument) and
 * the value that stand in the way, and why. Nothing was changed. {@link JobControlService} hands
 * it to the user's command as the protocol's {@code EdlError}; the fleet itself knows no Thrift.
 */
public final class FleetRefusal extends Exception {
  private static final long serialVersionUID = 1L;
  private final String field;
  private final String value;

  public FleetRefusal(String field, String value, String problem) {
    super(field + "=" + value + ": " + problem);
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
