package org.edl.worker.coord;

import java.util.List;

/**
 * A topology switch: at the end of step {@code atStep} the ring becomes {@code next}; the
 * broadcaster sends the model to the joiners and the leavers exit. {@code atStep < 0}: not
 * scheduled yet (newcomers are still preparing, or a replacement waits for {@code awaitedJoiners}).
 * {@code joinerShare}: what part of a member's even part of the global batch each joiner
 * computes in the first step on {@code next} (1: even parts; see {@link JoinerShare}).
 */
public record SwitchPlan(long atStep, MemberRing next, List<String> joiners, List<String> leavers,
    String broadcasterId, boolean leaderLeaves, int awaitedJoiners, long leaderEpoch, double joinerShare) {

  public SwitchPlan {
    joiners = List.copyOf(joiners);
    leavers = List.copyOf(leavers);
    if (!(joinerShare > 0 && joinerShare <= 1)) {
      throw new IllegalArgumentException("joinerShare=" + joinerShare + ": must be in (0, 1]");
    }
  }

  /** A plan whose joiners, if any, take even parts of their first step. */
  public SwitchPlan(long atStep, MemberRing next, List<String> joiners, List<String> leavers, String broadcasterId,
      boolean leaderLeaves, int awaitedJoiners, long leaderEpoch) {
    this(atStep, next, joiners, leavers, broadcasterId, leaderLeaves, awaitedJoiners, leaderEpoch, 1);
  }

  public boolean scheduled() {
    return atStep >= 0;
  }

  public long version() {
    return next.version();
  }

  /** The same switch as leadership {@code epoch} hands it out. */
  public SwitchPlan handedOutBy(long epoch) {
    return new SwitchPlan(atStep, next, joiners, leavers, broadcasterId, leaderLeaves, awaitedJoiners, epoch,
        joinerShare);
  }
}
