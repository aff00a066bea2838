package org.edl.scheduler.core.fair;

/** Argument checks whose messages name the field and the value, for the adapters to pass on. */
final class Checks {
  private Checks() {}

  static void nonNegative(String what, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(what + " must be >= 0, was " + value);
    }
  }

  static void positive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0, was " + value);
    }
  }

  static void weight(String user, double weight) {
    if (!(weight >= 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException(
          "weight of user " + user + " must be a finite number >= 0, was " + weight);
    }
  }
}
