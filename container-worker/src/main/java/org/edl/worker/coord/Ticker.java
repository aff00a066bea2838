package org.edl.worker.coord;

/** A monotonic nanosecond clock, passed in so that policy code never reads the wall. */
@FunctionalInterface
public interface Ticker {
  Ticker SYSTEM = System::nanoTime;

  long nanos();
}
