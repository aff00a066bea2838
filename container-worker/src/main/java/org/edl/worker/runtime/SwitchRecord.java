package org.edl.worker.runtime;

/**
 * One topology switch as one worker lived it. For an existing worker {@code stoppedNanos} is the
 * time its switch itself took, from the end of batch {@code atStep} until it could start the next
 * batch: swapping rings, which no longer waits for the new ring's links or the broadcast (they are
 * finished in the background, {@link TrainingRing}). {@code startNanos} and {@code endNanos} are
 * readings of the worker's ticker.
 *
 * <p>What the switch costs a survivor shows in its first batch on the new ring: its all-reduce
 * waits for the links and for the newcomers, who start when they have the model, so
 * {@code firstBatchSecondsAfter} exceeds {@code batchSecondsBefore} (NaN where there was no such
 * batch). A benchmark's stop time for such a worker is the switch plus that excess.
 *
 * @param role how the worker took part
 */
public record SwitchRecord(long topologyVersion, long atStep, Role role, int workersBefore,
    int workersAfter, long startNanos, long endNanos, double batchSecondsBefore,
    double firstBatchSecondsAfter) {

  public enum Role {
    /** Stayed and sent the model to the newcomers. */
    BROADCASTER,
    /** Stayed. */
    SURVIVOR,
    /** Joined: received the model and started at {@code atStep + 1}. */
    JOINER,
    /** Left at {@code atStep}. */
    LEAVER
  }

  public long stoppedNanos() {
    return endNanos - startNanos;
  }

  SwitchRecord withFirstBatch(double seconds) {
    return new SwitchRecord(topologyVersion, atStep, role, workersBefore, workersAfter, startNanos,
        endNanos, batchSecondsBefore, seconds);
  }
}
