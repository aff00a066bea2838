package org.edl.worker.runtime;

import java.net.ConnectException;
import java.util.HashSet;
import java.util.Set;

/**
 * A member's evidence that the leader the election still names is dead: its coordinator port
 * refuses connections. A live leader, even a paused or starved one, has a listening socket
 * whose connections the kernel accepts (a call then times out instead); only a port nobody
 * listens on is refused. One refusal could be a server being replaced, so the evidence is
 * {@value #REFUSALS} refusals spanning at least {@value #SPAN_MS} ms, and each address is given
 * up once. The time is passed in (nanoseconds).
 */
final class LeaderRefusals {
  static final int REFUSALS = 3;
  static final long SPAN_MS = 1_000;

  private String address;
  private int count;
  private long firstNanos;
  private final Set<String> givenUp = new HashSet<>();

  /** {@code address} refused a connection at {@code now}: whether that makes it dead, the first time. */
  synchronized boolean refused(String address, long now) {
    if (givenUp.contains(address)) {
      return false;
    }
    if (!address.equals(this.address)) {
      this.address = address;
      count = 0;
      firstNanos = now;
    }
    count++;
    if (count >= REFUSALS && now - firstNanos >= SPAN_MS * 1_000_000) {
      givenUp.add(address);
      return true;
    }
    return false;
  }

  /** An answer came from {@code address}: whatever refused before, it serves now. */
  synchronized void answered(String address) {
    if (address != null && address.equals(this.address)) {
      this.address = null;
      count = 0;
    }
  }

  /** Whether {@code e}, or one of its causes, is a refused connection. */
  static boolean isRefusal(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }
}
