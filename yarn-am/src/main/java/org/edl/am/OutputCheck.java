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

  /**
   * Whether output that verifies proves training finished, so that a later AM attempt that finds no
   * worker left may succeed on it instead of starting the job again.
   */
  default boolean provesFinished() {
    return true;
  }

  /**
   * A {@code --torchrun} script's: what it writes is its own affair, so every worker's exit 0 is the
   * job's success, and nothing proves to a later attempt that it had finished.
   */
  OutputCheck SCRIPTS_OWN = new OutputCheck() {
    @Override
    public Optional<String> problem() {
      return Optional.empty();
    }

    @Override
    public boolean provesFinished() {
      return false;
    }
  };
}
