package org.edl.job;

/**
 * How the leader treats a worker that is persistently slower than the others.
 *
 * @param factor  a worker slower than this x the median batch time is slow; 0: off
 * @param batches consecutive slow batches after which the leader removes a worker; 0: off
 * @param replace the AM starts a new container for each straggler the leader removed
 */
public record Stragglers(double factor, int batches, boolean replace) {
  /** No detection: specs built in code, where a paced worker must not be taken for a straggler. */
  public static final Stragglers OFF = new Stragglers(0, 0, false);

  /** Whether the leader looks for stragglers at all. */
  public boolean detects() {
    return factor > 0 && batches > 0;
  }
}
