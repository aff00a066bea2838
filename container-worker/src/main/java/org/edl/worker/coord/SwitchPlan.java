package org.edl.worker.coord;

import java.util.List;

/**
 * A topology switch: at the end of step {@code atStep} the ring becomes {@code next}; the
 * broadcaster sends the model to the joiners and the leavers exit. {@code atStep < 0}: not
 * scheduled yet (newcomers are still preparing, or a replacement waits for {@code awaitedJoiners}).
 */
public record SwitchPlan(long atStep, MemberRing next, List<String> joiners, List<String> leavers,
    String broadcasterId, boolean leaderLeaves, int awaitedJoiners, long leaderEpoch) {

  public SwitchPlan {
    joiners = List.copyOf(joiners);
    leavers = List.copyOf(leavers);
  }

  public boolean scheduled() {
    return atStep >= 0;
  }

  public long version() {
    return next.version();
  }
}
