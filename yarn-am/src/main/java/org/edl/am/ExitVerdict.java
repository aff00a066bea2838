package org.edl.am;

/**
 * What a container's end means for the job ({@link ExitRules#judge}); {@code reason} says why, for
 * the log and the status; {@code failure}: it counts as a worker failure.
 */
record ExitVerdict(Kind kind, String reason, boolean failure) {
  enum Kind {
    /** Nothing to do: not a container the fleet holds, or the job has ended. */
    IGNORE,
    /** It ended after training finished without that mattering; the job waits for the others. */
    AFTER_TRAINING,
    /** Training finished: nothing is replaced any more; the job ends when the last worker has exited. */
    FINISHED_TRAINING,
    /** A scale-in or migration leaver is gone; the target already excludes it. */
    LEFT,
    /** A worker stopping for a stop-resume has stopped; the last one starts the relaunch. */
    STOPPED_FOR_RESTART,
    /** The leader removed it on its own (a straggler): the target shrinks by one. */
    REMOVED_SHRINK,
    /** The leader removed it on its own: one new container joins in its place. */
    REMOVED_REPLACE,
    /** The resource manager took it after its warning: the target shrinks by one, never below the minimum. */
    PREEMPTED_SHRINK,
    /**
     * The resource manager took it after its warning, and no ring member is left to hand the model
     * to new workers: the job starts again from its newest checkpoint, as after a stop-resume.
     */
    PREEMPTED_RELAUNCH,
    /** A failure the job survives: one new container joins like a scale-out newcomer. */
    FAILURE_REPLACE,
    /** A migration newcomer failed: one new container on the migration's target host. */
    FAILURE_REPLACE_ON_HOST,
    /** The job fails. */
    FAILURE_FATAL
  }

  static ExitVerdict of(Kind kind, String reason) {
    return new ExitVerdict(kind, reason, false);
  }

  static ExitVerdict failure(Kind kind, String reason) {
    return new ExitVerdict(kind, reason, true);
  }
}
