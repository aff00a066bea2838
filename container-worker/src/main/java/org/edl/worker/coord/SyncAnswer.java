package org.edl.worker.coord;

import java.util.Optional;

/**
 * The leader's answer to a step report: the change on its way (if any), the scheduled switch (to
 * members that still train before its step), the scheduled stop, or "recover".
 */
public record SyncAnswer(Optional<MemberRing> pending, Optional<SwitchPlan> order, Optional<StopPlan> stop,
    boolean recover) {
  static final SyncAnswer RECOVER = new SyncAnswer(Optional.empty(), Optional.empty(), Optional.empty(), true);
}
