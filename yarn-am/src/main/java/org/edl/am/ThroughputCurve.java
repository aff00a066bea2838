package org.edl.am;

import java.util.OptionalDouble;

/** A job's throughput (samples per second) at each number of workers, where it is known. */
@FunctionalInterface
public interface ThroughputCurve {
  OptionalDouble at(int workers);

  /** Nothing known at any size. */
  ThroughputCurve UNKNOWN = workers -> OptionalDouble.empty();
}
