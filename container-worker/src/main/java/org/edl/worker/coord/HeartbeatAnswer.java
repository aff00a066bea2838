package org.edl.worker.coord;

import java.util.Optional;

/**
 * The answer to a heartbeat: abandon rings up to {@code abandonRing} (-1: none); {@code fenced}: exit;
 * {@code ahead}: the scheduled switch the member stays through, newer than the one it knows.
 */
public record HeartbeatAnswer(long leaderEpoch, long abandonRing, boolean fenced, Optional<SwitchPlan> ahead) {
  public HeartbeatAnswer(long leaderEpoch, long abandonRing, boolean fenced) {
    this(leaderEpoch, abandonRing, fenced, Optional.empty());
  }

  /** Whether the member should hear this before its next beat. */
  public boolean news() {
    return fenced || abandonRing >= 0 || ahead.isPresent();
  }
}
