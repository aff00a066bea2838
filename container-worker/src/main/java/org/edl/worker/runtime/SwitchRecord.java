package org.edl.worker.runtime;

/**
 * One topology switch as one worker lived it. For an existing worker {@code stoppedNanos} is the
 * time it did not train because of the switch: from the end of batch {@code atStep} until it was
 * ready to run the next batch on the new ring (waiting for that ring and, for the broadcaster,
 * sending the model). {@code startNanos} and {@code endNanos} are readings of the worker's ticker.
 *
 * <p>A survivor that does not broadcast is not held by the broadcast in the switch itself, but
 * its first all-reduce on the new ring waits for the newcomers, who start when they have the
 * model: that shows as {@code firstBatchSecondsAfter} above {@code batchSecondsBefore} (NaN where
 * there was no such batch). A benchmark's stop time for such a worker is the switch plus that
 * excess.
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
