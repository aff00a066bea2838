package org.edl.worker.collective;

import java.io.IOException;

/** A collective or a connection did not complete within its timeout; the links are unusable after it. */
public class CollectiveTimeoutException extends IOException {
  private static final long serialVersionUID = 1L;

  public CollectiveTimeoutException(String message) {
    super(message);
  }
}
