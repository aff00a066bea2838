package org.edl.worker.coord;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's {@link Phase}, changed only by compare-and-set along the transitions the
 * phase allows, as Curator's LeaderLatch keeps its state. Any thread may fence it (the ZooKeeper
 * connection listener does, without waiting for the coordinator's lock); listeners hear each
 * change on the executor they were added with.
 */
public final class Lifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);

  /** Hears each phase change. */
  @FunctionalInterface
  public interface Listener {
    void changed(Phase from, Phase to);
  }

  private record Registration(Listener listener, Executor executor) {}

  private final String owner;
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.CANDIDATE);
  private final List<Registration> listeners = new CopyOnWriteArrayList<>();

  public Lifecycle(String owner) {
    this.owner = owner;
  }

  public Phase phase() {
    return phase.get();
  }

  public boolean leading() {
    return phase.get().leading();
  }

  public void addListener(Listener l, Executor executor) {
    listeners.add(new Registration(l, executor));
  }

  /**
   * Moves from {@code from} to {@code to}.
   *
   * @return false when the phase was not {@code from} any more (another thread moved it first)
   * @throws IllegalStateException the protocol has no such transition
   */
  public boolean move(Phase from, Phase to) {
    if (from == to) {
      return phase.get() == from;
    }
    if (!from.mayBecome(to)) {
      throw new IllegalStateException(owner + ": no transition " + from + " -> " + to);
    }
    if (!phase.compareAndSet(from, to)) {
      return false;
    }
    LOG.info("{}: coordinator {} -> {}", owner, from, to);
    for (Registration r : listeners) {
      r.executor().execute(() -> r.listener().changed(from, to));
    }
    return true;
  }

  /** Moves from whatever the phase is now to {@code to} when allowed; false when it is not. */
  public boolean moveIfAllowed(Phase to) {
    while (true) {
      Phase now = phase.get();
      if (now == to) {
        return true;
      }
      if (!now.mayBecome(to)) {
        return false;
      }
      if (move(now, to)) {
        return true;
      }
    }
  }

  /** Never leads or acts again (a lost session, a newer epoch); a final phase stays as it is. */
  public void fence(String why) {
    Phase before = phase.get();
    if (moveIfAllowed(Phase.FENCED) && before != Phase.FENCED) {
      LOG.warn("{}: coordinator fenced in phase {}: {}", owner, before, why);
    }
  }

  /** This worker's run is over or it leaves: it never leads. */
  public void retire() {
    moveIfAllowed(Phase.RETIRED);
  }
}
