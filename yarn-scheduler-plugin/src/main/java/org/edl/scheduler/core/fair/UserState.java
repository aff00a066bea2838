package org.edl.scheduler.core.fair;

import java.util.Objects;

/**
 * A user (a per-user queue in YARN) as the fair share sees it.
 *
 * @param name the user; unique in one decision
 * @param weight the user's share weight, {@code >= 0}; a user of weight 0 only gets GPUs nobody
 *     of positive weight asks for
 * @param gpusHeld GPUs the user's running containers hold now, {@code >= 0}
 */
public record UserState(String name, double weight, int gpusHeld) {
  public UserState {
    Objects.requireNonNull(name, "name");
    Checks.weight(name, weight);
    Checks.nonNegative("gpusHeld of user " + name, gpusHeld);
  }

  /** A user of the default weight 1. */
  public static UserState of(String name, int gpusHeld) {
    return new UserState(name, 1.0, gpusHeld);
  }
}
