package org.edl.client;

/**
 * A running job's control endpoint could not be used (no secret, secret refused, AM
 * unreachable). Not the user's input: the CLI prints the message as one line, exits 1, and
 * shows the cause only under {@code --verbose}.
 */
public final class JobControlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public JobControlException(String message, Throwable cause) {
    super(message, cause);
  }
}
