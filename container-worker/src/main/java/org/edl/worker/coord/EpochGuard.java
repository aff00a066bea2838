package org.edl.worker.coord;

/**
 * Asked before every decision a leader makes (a member declared failed, a switch or stop
 * scheduled, a recovery ordered, the output written): is this leadership still the newest? A
 * leader that was paused (a long GC, SIGSTOP) may wake up after its ZooKeeper session expired
 * and a successor took a newer epoch, before its own client has noticed; only asking ZooKeeper
 * tells. The ZooKeeper implementation is {@code LeaderEpoch}.
 */
@FunctionalInterface
public interface EpochGuard {
  /** For coordinators without ZooKeeper (tests of the decisions). */
  EpochGuard TRUSTING = () -> true;

  /** False when the leadership is over: the coordinator fences itself and decides nothing. */
  boolean stillLeading();
}
