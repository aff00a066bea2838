package org.edl.am;

import java.util.List;

/**
 * Asks the job's leader to remove workers at a future step (graceful scale-in). The leader talks
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

  /** For a fleet that never scales in (tests of the static job). */
  WorkerRemoval UNSUPPORTED = (ids, answers) -> {
    throw new UnsupportedOperationException("this fleet cannot remove workers");
  };
}
