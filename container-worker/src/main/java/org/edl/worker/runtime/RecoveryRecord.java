package org.edl.worker.runtime;

import java.util.List;

/**
 * One recovery this worker lived through: the survivors' topology, the mode the leader chose,
 * who failed, the last step this worker's model held when its ring failed, where it went on
 * from, and how long it took (its own clock).
 *
 * @param source     approximate: the survivor that sent the model; else null
 * @param checkpoint consistent: the checkpoint loaded; null for the initial state or approximate
 */
public record RecoveryRecord(long topologyVersion, String mode, List<String> failed, long lastCompletedStep,
    long nextStep, long batchStart, String source, String checkpoint, int workers, long startNanos, long endNanos) {

  public double seconds() {
    return (endNanos - startNanos) / 1e9;
  }
}
