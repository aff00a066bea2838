package org.edl.am;

/**
 * Asks the job's leader to checkpoint and stop every worker at a future step (the stop-resume
 * baseline). Like {@link WorkerRemoval} it works off the AM's main thread and hands the answer
 * back onto it.
 */
public interface JobStopper {
  /** The leader's answer, delivered on the AM's main thread. */
  interface Answer {
    void accepted(long atStep);

    /** Refused, or the leader could not be reached in time: the workers go on training. */
    void refused(Exception cause);
  }

  void stopForRestart(String directory, Answer answer);

  /** For a fleet that never restarts (tests of the static job). */
  JobStopper UNSUPPORTED = (directory, answer) -> {
    throw new UnsupportedOperationException("this fleet cannot stop its workers for a restart");
  };
}
