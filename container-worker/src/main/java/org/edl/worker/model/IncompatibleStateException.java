package org.edl.worker.model;

import java.io.IOException;

/**
 * Saved state that is well-formed but belongs to another model or shape. Kept apart from plain
 * {@link IOException} so checkpoint code can tell "wrong job" from "damaged file".
 */
public class IncompatibleStateException extends IOException {
  private static final long serialVersionUID = 1L;

  public IncompatibleStateException(String message) {
    super(message);
  }
}
