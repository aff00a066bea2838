package org.edl.worker.collective;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A ring link closed or reset by the other end, as opposed to one that is only slow (a
 * {@link CollectiveTimeoutException}): the peer's process ended, or it left the ring. The
 * leader weighs it with the peer's heartbeats, because a live peer that abandons a ring to
 * recover closes its links too.
 */
public final class BrokenLinkException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String peerId;

  public BrokenLinkException(String peerId, String message, Throwable cause) {
    super(message, cause);
    this.peerId = peerId;
  }

  public String peerId() {
    return peerId;
  }

  /** The peers of every broken link in {@code t}'s causes and suppressed exceptions, in order, once each. */
  public static List<String> peersIn(Throwable t) {
    Set<String> peers = new LinkedHashSet<>();
    collect(t, peers, new ArrayList<>());
    return List.copyOf(peers);
  }

  private static void collect(Throwable t, Set<String> peers, List<Throwable> seen) {
    if (t == null || seen.stream().anyMatch(s -> s == t)) {
      return;
    }
    seen.add(t);
    if (t instanceof BrokenLinkException b) {
      peers.add(b.peerId());
    }
    collect(t.getCause(), peers, seen);
    for (Throwable s : t.getSuppressed()) {
      collect(s, peers, seen);
    }
  }
}
