package org.edl.worker.coord;

import java.util.concurrent.TimeUnit;
import org.edl.job.Scale;

/**
 * Whether a job's first ring may form before every worker it asked for has registered: once
 * min-workers have, and the gathering window ({@link Scale#gatherMs}) has passed since, the job
 * starts with those there rather than idle the GPUs it holds while YARN grants the rest. Never for
 * a job that waits for all, nor for a stop-resume relaunch, whose size the change that stopped it
 * chose. Pure: the caller gives the time; not thread-safe.
 */
final class FirstRingGathering {
  private static final long NOT_YET = Long.MIN_VALUE;

  private final int minWorkers;
  private final long windowNanos;
  private boolean waitForAll;
  private long minimumAt = NOT_YET;

  FirstRingGathering(Scale scale) {
    this.minWorkers = scale.minWorkers();
    this.windowNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, scale.gatherMs()));
    this.waitForAll = !scale.startsAtMinimum();
  }

  /** The first ring must have all its workers from now on (a stop-resume relaunch). */
  void waitForAll() {
    waitForAll = true;
  }

  /** {@code registered} workers are registered for the first ring at {@code now}. */
  void registered(int registered, long now) {
    if (minimumAt == NOT_YET && registered >= minWorkers) {
      minimumAt = now;
    }
  }

  /** Whether the first ring should form now with the workers registered. */
  boolean formNow(long now) {
    return !waitForAll && minimumAt != NOT_YET && now - minimumAt >= windowNanos;
  }
}
