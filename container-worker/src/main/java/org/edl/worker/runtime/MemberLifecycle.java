package org.edl.worker.runtime;

import java.util.concurrent.atomic.AtomicReference;
import org.edl.worker.coord.CoordinatorState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This worker's {@link MemberPhase}, changed only by compare-and-set along the moves the phase
 * allows ({@link #move}), as Curator's LeaderLatch keeps its state. The training thread moves it
 * through a run; the heartbeat thread may move TRAINING to PREPARED; any thread may fence it.
 */
public final class MemberLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(MemberLifecycle.class);

  private record State(MemberPhase phase, String fencedBecause) {}

  private final String workerId;
  private final AtomicReference<State> state = new AtomicReference<>(new State(MemberPhase.JOINING, null));

  public MemberLifecycle(String workerId) {
    this.workerId = workerId;
  }

  public MemberPhase phase() {
    return state.get().phase();
  }

  /** Why it was fenced; null unless it was. */
  public String fencedBecause() {
    return state.get().fencedBecause();
  }

  /**
   * From {@code from} to {@code to}, staying put a no-op (the heartbeat's TRAINING to PREPARED).
   *
   * @return false when the phase was not {@code from} (another thread moved it first)
   * @throws IllegalStateException the table has no such move: a bug in the member, not a race
   */
  public boolean move(MemberPhase from, MemberPhase to) {
    return move(from, to, null);
  }

  /**
   * From the phase it is in now, which only the calling thread moves (the training thread) but
   * for the heartbeat's preparing and a fence.
   *
   * @throws FencedException it was fenced (before or while it moved): the run is over
   */
  public void to(MemberPhase next) throws FencedException {
    while (true) {
      MemberPhase now = phase();
      if (now == MemberPhase.FENCED) {
        throw new FencedException(workerId + " " + CoordinatorState.FENCED + ": " + fencedBecause(), null);
      }
      if (move(now, next)) {
        return;
      }
      // The heartbeat prepared a switch meanwhile (TRAINING -> PREPARED), or a fence came: again.
    }
  }

  /** Out of the job for good (first reason kept); a final phase stays as it is. @return whether this call fenced it */
  public boolean fence(String why) {
    while (true) {
      State now = state.get();
      if (now.phase().isFinal()) {
        return false;
      }
      if (move(now.phase(), MemberPhase.FENCED, why)) {
        LOG.warn("{}: fenced in phase {}: {}", workerId, now.phase(), why);
        return true;
      }
    }
  }

  /** The one place the phase changes; {@code why} is kept with a fence. */
  private boolean move(MemberPhase from, MemberPhase to, String why) {
    State now = state.get();
    if (from == to) {
      return now.phase() == from;
    }
    if (!from.mayBecome(to)) {
      throw new IllegalStateException(workerId + ": no member move " + from + " -> " + to);
    }
    if (now.phase() != from || !state.compareAndSet(now, new State(to, why))) {
      return false;
    }
    LOG.debug("{}: member {} -> {}", workerId, from, to);
    return true;
  }
}
