package org.edl.worker.collective;

import java.time.Duration;

/** A point in {@link System#nanoTime()} time by which an operation must finish. */
record Deadline(long nanos, Duration timeout) {

  static Deadline after(Duration timeout) {
    return new Deadline(System.nanoTime() + timeout.toNanos(), timeout);
  }

  /** Milliseconds left, at least 1 (0 means "forever" to a Selector); throws once passed. */
  long remainingMillisOrThrow(String what) throws CollectiveTimeoutException {
    long left = nanos - System.nanoTime();
    if (left <= 0) {
      throw new CollectiveTimeoutException(what + " did not finish within " + timeout);
    }
    return Math.max(1, left / 1_000_000);
  }

  /**
   * An interrupted thread's selector returns at once from every select: without this check a
   * cancelled wait (a switch abandoned while its ring forms) would spin until its deadline.
   */
  static void failIfInterrupted(String what) throws java.io.InterruptedIOException {
    if (Thread.currentThread().isInterrupted()) {
      throw new java.io.InterruptedIOException(what + ": interrupted");
    }
  }
}
