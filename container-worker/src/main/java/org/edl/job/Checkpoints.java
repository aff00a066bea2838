package org.edl.job;

/**
 * The job's periodic checkpoints, and the checkpoint it starts from.
 *
 * @param everyBatches the leader writes a periodic checkpoint after this many batches (or
 *                     {@code everyMinutes}, whichever comes first); 0: never by count
 * @param everyMinutes ... or after this many minutes; 0: never by time
 * @param kept         periodic checkpoints kept (the newest ones); older ones are deleted
 * @param resumeFrom   a checkpoint (or a directory of them) the job's first workers start from;
 *                     empty: from scratch
 */
public record Checkpoints(long everyBatches, int everyMinutes, int kept, String resumeFrom) {
  /** The paper's example: a checkpoint every 1000 batches or 10 minutes, whichever comes first. */
  public static final Checkpoints DEFAULT = new Checkpoints(JobSpec.DEFAULT_CHECKPOINT_EVERY_BATCHES,
      JobSpec.DEFAULT_CHECKPOINT_EVERY_MINUTES, JobSpec.DEFAULT_CHECKPOINTS_KEPT, "");
}
