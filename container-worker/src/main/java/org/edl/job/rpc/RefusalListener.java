package org.edl.job.rpc;


/** Told about every inbound connection refused by the handshake (a server counts and reports). */
@FunctionalInterface
public interface RefusalListener {
  RefusalListener NONE = (peer, cause) -> { };

  void refused(String peer, AuthenticationException cause);
}
