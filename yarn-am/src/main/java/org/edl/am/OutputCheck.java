package org.edl.am;

import java.util.Optional;

/**
 * Whether a job that finished training left the output it promises (for the ApplicationMaster,
 * {@code ModelOutput.verify}: metrics.json for every step, model.bin of the length and checksum it
 * names). Every worker exiting 0 says only that training finished; the job is SUCCEEDED only once
 * this also holds. {@link WorkerFleet} asks once, on its main thread, when it would succeed.
 */
@FunctionalInterface
public interface OutputCheck {
  /** What is wrong with the job's output, for the final diagnostics; empty when it verifies. */
  Optional<String> problem();
}
