package org.edl.worker.coord;

import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a consistent recovery goes back to: the newest complete checkpoint the leader heard of,
 * unless it was damaged since (then the newest older one that verifies), or else the job's
 * initial position. Owned by {@link FailureRecovery}; pure, like it.
 */
final class RecoveryPoints {
  private static final Logger LOG = LoggerFactory.getLogger(FailureRecovery.class);

  private CheckpointRef newest;
  private JobPosition initial;
  private CheckpointCheck check = CheckpointCheck.TRUSTING;

  RecoveryPoints(JobPosition initial) {
    this.initial = initial;
  }

  void checkWith(CheckpointCheck c) {
    check = c;
  }

  void initial(JobPosition p) {
    initial = p;
  }

  JobPosition initial() {
    return initial;
  }

  Optional<CheckpointRef> newest() {
    return Optional.ofNullable(newest);
  }

  /** @return whether {@code ref} is the newest now (one older than the newest is not) */
  boolean written(CheckpointRef ref) {
    if (newest == null || ref.at().step() >= newest.at().step()) {
      newest = ref;
      return true;
    }
    return false;
  }

  /**
   * The newest checkpoint that still verifies, or null for the initial state; an event for the
   * job's log when the newest did not verify and the recovery goes back further.
   */
  Optional<String> dropDamaged(long jobStep) {
    if (newest == null) {
      return Optional.empty();
    }
    Optional<CheckpointRef> usable = check.usable(newest);
    if (usable.isPresent() && usable.get().path().equals(newest.path())) {
      return Optional.empty();
    }
    String instead = usable.map(u -> "checkpoint " + u.path() + " (step " + u.at().step() + ")")
        .orElse("the initial state");
    LOG.warn("Checkpoint {} does not verify any more; recovery goes back to {}", newest.path(), instead);
    String event = "step " + jobStep + ": checkpoint " + newest.path() + " does not verify; recovery goes back to "
        + instead;
    newest = usable.orElse(null);
    return Optional.of(event);
  }

  /** The position a consistent recovery restores: the newest checkpoint's, or the initial one. */
  JobPosition from() {
    return newest != null ? newest.at() : initial;
  }

  /** The checkpoint a consistent recovery loads; null: the initial state. */
  String path() {
    return newest == null ? null : newest.path();
  }
}
