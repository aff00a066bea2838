package org.edl.worker.runtime;

import java.util.Optional;

/**
 * A stop for a restart as one worker lived it (the stop-resume baseline). {@code startNanos}:
 * the end of batch {@code atStep}, when the worker stopped training; {@code endNanos}: when its
 * part was done and it ended its run (the leader after writing {@code checkpoint}). Readings of
 * the worker's ticker. The whole stop of a restart lasts until the relaunched job trains again.
 */
public record StopRecord(long atStep, int workers, long startNanos, long endNanos, Optional<String> checkpoint) {

  public long stoppingNanos() {
    return endNanos - startNanos;
  }
}
