package org.edl.worker.coord;

import java.util.Optional;

/**
 * Which checkpoint consistent recovery can order the survivors to load. A checkpoint verified
 * when it was written can be damaged since (a lost block, an overwritten file); ordering it would
 * leave every survivor unable to restore. The leader asks this before it orders a checkpoint.
 */
@FunctionalInterface
public interface CheckpointCheck {
  /** Orders the newest checkpoint as it is, without reading it (coordinators without storage, tests). */
  CheckpointCheck TRUSTING = Optional::of;

  /**
   * @return {@code newest} itself when it is usable, the newest older one of the same job that is,
   *     or empty when none is (recovery then goes back to the job's initial state)
   */
  Optional<CheckpointRef> usable(CheckpointRef newest);
}
