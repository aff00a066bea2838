package org.edl.job.rpc;

import java.io.IOException;

/** A peer did not prove it knows the job's secret, or the handshake could not complete. */
public class AuthenticationException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String peer;

  public AuthenticationException(String peer, String problem) {
    super(peer + ": " + problem);
    this.peer = peer;
  }

  public AuthenticationException(String peer, String problem, Throwable cause) {
    super(peer + ": " + problem, cause);
    this.peer = peer;
  }

  /** The remote address the handshake was with. */
  public String peer() {
    return peer;
  }
}
