package org.edl.am;

/**
 * How a worker container ended, as YARN tells it: its exit status and diagnostics, or
 * ({@code status} null) that the node manager could not start it.
 */
record ContainerExit(Integer status, String diagnostics) {
  static ContainerExit exited(int status, String diagnostics) {
    return new ContainerExit(status, diagnostics);
  }

  static ContainerExit notStarted(Throwable cause) {
    return new ContainerExit(null, String.valueOf(cause));
  }

  boolean started() {
    return status != null;
  }

  boolean is(int exitStatus) {
    return status != null && status == exitStatus;
  }

  /** {@code "exit status 137 (killed)"}, {@code "could not be started: java.io.IOException: ..."}. */
  String how() {
    return status != null ? "exit status " + ExitStatusText.of(status) : "could not be started: " + diagnostics;
  }
}
