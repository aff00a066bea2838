package org.edl.am;

import java.util.List;

/**
 * Asks the job's leader to remove workers at a future step (graceful scale-in, or a migration's
 * replacement). The leader talks
 * over the network, so an implementation works off the AM's main thread and hands each answer
 * back onto it: the fleet hears {@link Answers} on the main thread only.
 */
public interface WorkerRemoval {
  /** The leader's answer for one container, delivered on the AM's main thread. */
  interface Answers {
    /** The leader scheduled the leave ({@code atStep} < 0: merged into a change still waiting). */
    void accepted(String containerId, long atStep);

    /** The leader refused, or could not be reached in time: the container stays in the job. */
    void refused(String containerId, Exception cause);
  }

  /** Asks for every container in {@code containerIds} to leave; answers arrive one per container. */
  void leave(List<String> containerIds, Answers answers);

  /** The leader's answer to a {@link #replace}, delivered on the AM's main thread. */
  interface ReplacementAnswer {
    /** The leader holds the leave for the newcomers ({@code atStep} < 0 until they are ready). */
    void accepted(long atStep);

    /** The leader refused, or could not be reached in time: nobody leaves. */
    void refused(Exception cause);
  }

  /**
   * Migration in one switch: tells the leader, before the newcomers are launched, that
   * {@code leavers} leave at the switch that admits the next {@code joiners} newcomers.
   */
  default void replace(List<String> leavers, int joiners, ReplacementAnswer answer) {
    throw new UnsupportedOperationException("this fleet cannot replace workers");
  }

  /** For a fleet that never scales in (tests of the static job). */
  WorkerRemoval UNSUPPORTED = (ids, answers) -> {
    throw new UnsupportedOperationException("this fleet cannot remove workers");
  };
}
