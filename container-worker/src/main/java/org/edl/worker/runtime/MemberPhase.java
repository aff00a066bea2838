package org.edl.worker.runtime;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where this worker is as a member of the job's ring. Every move the protocol allows is in
 * {@link #NEXT}; {@link MemberLifecycle} refuses any other.
 *
 * <pre>
 *   JOINING --ring formed, or joined at a switch--> TRAINING
 *   TRAINING --a heartbeat's news of a switch it stays through--> PREPARED
 *   TRAINING | PREPARED --a sync reply's switch order--> SWITCH_ORDERED (stays) | LEAVING (leaves)
 *   SWITCH_ORDERED --switched at its step--> TRAINING
 *   TRAINING --stop order--> STOPPING
 *   TRAINING --last step trained--> FINISHING
 *   any of the ring's phases --its ring failed--> RECOVERING --survivors' ring--> TRAINING | STOPPING
 *   LEAVING | STOPPING | FINISHING --left, stopped, or the output written--> DONE
 *   any but DONE --declared failed, or its session lost--> FENCED
 * </pre>
 *
 * DONE and FENCED are final.
 */
public enum MemberPhase {
  /** Registered (or registering), not yet in a ring. */
  JOINING,
  /** Trains in a ring; no change ordered for it. */
  TRAINING,
  /** The leader scheduled a switch it stays through (heard from a heartbeat): its ring connects ahead. */
  PREPARED,
  /** A sync reply ordered the switch it stays through; it swaps rings at the order's step. */
  SWITCH_ORDERED,
  /** A switch order names it a leaver; it leaves at the order's step. */
  LEAVING,
  /** A stop for a restart is ordered; it ends after the stop's step. */
  STOPPING,
  /** Its ring failed; it asks the leader how to go on and joins the survivors' ring. */
  RECOVERING,
  /** It trained the last step and waits until the output is written. */
  FINISHING,
  /** The leader declared it failed, or it lost its ZooKeeper session: it is out of the job. */
  FENCED,
  /** It left, stopped or finished. */
  DONE;

  private static final Set<MemberPhase> IN_RING = EnumSet.of(TRAINING, PREPARED, SWITCH_ORDERED, LEAVING, STOPPING,
      FINISHING, RECOVERING);

  private static final Map<MemberPhase, Set<MemberPhase>> NEXT = Map.of(
      JOINING, EnumSet.of(TRAINING, FENCED),
      TRAINING, EnumSet.of(PREPARED, SWITCH_ORDERED, LEAVING, STOPPING, FINISHING, RECOVERING, FENCED),
      PREPARED, EnumSet.of(SWITCH_ORDERED, LEAVING, RECOVERING, FENCED),
      SWITCH_ORDERED, EnumSet.of(TRAINING, RECOVERING, FENCED),
      LEAVING, EnumSet.of(DONE, RECOVERING, FENCED),
      STOPPING, EnumSet.of(DONE, RECOVERING, FENCED),
      RECOVERING, EnumSet.of(TRAINING, STOPPING, FENCED),
      FINISHING, EnumSet.of(DONE, RECOVERING, FENCED),
      FENCED, EnumSet.noneOf(MemberPhase.class),
      DONE, EnumSet.noneOf(MemberPhase.class));

  public boolean mayBecome(MemberPhase next) {
    return NEXT.get(this).contains(next);
  }

  /** It has a place in a ring (a recovery's included). */
  public boolean inRing() {
    return IN_RING.contains(this);
  }

  public boolean isFinal() {
    return NEXT.get(this).isEmpty();
  }
}
