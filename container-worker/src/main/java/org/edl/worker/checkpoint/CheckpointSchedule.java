package org.edl.worker.checkpoint;

import java.time.Duration;
import org.edl.job.JobSpec;
import org.edl.worker.coord.Ticker;

/**
 * When the leader writes a periodic checkpoint: after every {@code everyBatches} batches or
 * every {@code every} of time since the last one, whichever comes first (0 disables either).
 * Counted from the first step this schedule sees (a worker that takes over the lead starts
 * counting then). Not thread-safe: the leader's training thread owns it.
 */
public final class CheckpointSchedule {
  private final long everyBatches;
  private final long everyNanos;
  private final Ticker ticker;
  private long lastNextStep = -1;
  private long lastNanos;

  public CheckpointSchedule(long everyBatches, Duration every, Ticker ticker) {
    if (everyBatches < 0 || every.isNegative()) {
      throw new IllegalArgumentException("negative checkpoint interval: " + everyBatches + " batches, " + every);
    }
    this.everyBatches = everyBatches;
    this.everyNanos = every.toNanos();
    this.ticker = ticker;
  }

  public static CheckpointSchedule of(JobSpec spec, Ticker ticker) {
    return new CheckpointSchedule(spec.checkpoints().everyBatches(),
        Duration.ofMinutes(spec.checkpoints().everyMinutes()), ticker);
  }

  public boolean enabled() {
    return everyBatches > 0 || everyNanos > 0;
  }

  /**
   * Whether a checkpoint is due now that every step before {@code nextStep} is trained. The
   * first call only starts the count (the step before it was trained before this schedule).
   */
  public boolean due(long nextStep) {
    long now = ticker.nanos();
    if (lastNextStep < 0) {
      lastNextStep = nextStep - 1;
      lastNanos = now;
    }
    if (!enabled()) {
      return false;
    }
    return (everyBatches > 0 && nextStep - lastNextStep >= everyBatches)
        || (everyNanos > 0 && now - lastNanos >= everyNanos);
  }

  /** A checkpoint at {@code nextStep} was taken: both counts start again. */
  public void taken(long nextStep) {
    lastNextStep = nextStep;
    lastNanos = ticker.nanos();
  }
}
