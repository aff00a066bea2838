package org.edl.am;

/**
 * A stop-resume change under way: every worker stops with a checkpoint in {@code directory};
 * once the last has exited, {@code size} new ones start from it. {@code previousTarget} is what
 * the job goes back to when the leader refuses the stop. {@code pausedFor}: why a scheduler
 * paused the job (a stop-resume at the same size whose containers it grants when it wants the
 * job to run again); null for a change of size.
 */
record StopResume(int size, int previousTarget, String directory, String pausedFor) {
  StopResume(int size, int previousTarget, String directory) {
    this(size, previousTarget, directory, null);
  }

  /** The same stop, restarting from {@code checkpoint} instead. */
  StopResume from(String checkpoint) {
    return new StopResume(size, previousTarget, checkpoint, pausedFor);
  }
}
