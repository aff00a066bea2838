package org.edl.am;

import java.io.IOException;
import java.util.Optional;

/**
 * Where a stop-resume's new workers start from, asked once every old worker has exited. The
 * stop's own checkpoint is the answer when its leader wrote it; a leader that failed while
 * stopping (out of memory writing the model, killed) leaves none, and the new workers would all
 * fail on a directory that does not exist. Then the job's newest earlier checkpoint is the answer
 * (consistent recovery: the steps since it are trained again), or none at all.
 */
@FunctionalInterface
public interface RestartSource {
  /** The stop's own directory, unchecked: for fleets whose tests do not look at checkpoints. */
  RestartSource STOP_DIRECTORY = Optional::of;

  /**
   * @param stopDirectory where the leader was asked to write the stop's checkpoint
   * @return the checkpoint (or directory of checkpoints) to restore, or empty when the job has none
   */
  Optional<String> checkpointFor(String stopDirectory) throws IOException;
}
