package org.edl.am;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A migration under way: the leader holds the leave of {@code leavers} (on {@code fromHost})
 * for as many newcomers on {@code toHost}. Owned by the fleet's one thread.
 */
final class HostMigration {
  final String fromHost;
  final String toHost;
  final List<String> leavers;
  /** Newcomer containers launched on {@code toHost}. */
  final Set<String> newcomers = new LinkedHashSet<>();
  /** Newcomer containers requested on {@code toHost} and not yet allocated. */
  int awaited;
  /** Whether the leader holds the leave (only then are newcomers requested). */
  boolean held;

  HostMigration(String fromHost, String toHost, List<String> leavers) {
    this.fromHost = fromHost;
    this.toHost = toHost;
    this.leavers = List.copyOf(leavers);
  }
}
