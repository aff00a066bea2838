package org.edl.am;

import java.util.OptionalDouble;

/** A job's throughput (samples per second) at each number of workers, where it is known. */
@FunctionalInterface
public interface ThroughputCurve {
  OptionalDouble at(int workers);

  /**
   * Whether the figure at {@code workers} is firm enough to undo a change by: a measured curve
   * wants more than one window (a newcomer's first steps run cold); a profile is firm at once.
   */
  default boolean settled(int workers) {
    return at(workers).isPresent();
  }

  /** Nothing known at any size. */
  ThroughputCurve UNKNOWN = workers -> OptionalDouble.empty();
}
