package org.edl.job;

import java.io.Closeable;
import java.io.IOException;

/**
 * Closing a stream whose write failed. An HDFS output stream remembers the exception that ended
 * its write (a DataNode lost, the file deleted by a newer leader) and throws that same object
 * again from {@code close}; try-with-resources would then add it to itself as suppressed, which
 * throws {@code IllegalArgumentException: Self-suppression not permitted} instead of the real
 * error.
 */
public final class FailedWrites {
  private FailedWrites() {}

  /** Closes {@code stream}, adding what its close throws to {@code failure} unless it is {@code failure}. */
  public static void close(Closeable stream, Throwable failure) {
    try {
      stream.close();
    } catch (IOException | RuntimeException e) {
      if (e != failure) {
        failure.addSuppressed(e);
      }
    }
  }
}
