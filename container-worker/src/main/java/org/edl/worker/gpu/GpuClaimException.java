package org.edl.worker.gpu;

/** Too few GPU indices were free on the node; the message names the directory and the holders. */
public final class GpuClaimException extends IllegalStateException {
  GpuClaimException(String message) {
    super(message);
  }
}
