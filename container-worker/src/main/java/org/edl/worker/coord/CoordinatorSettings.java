package org.edl.worker.coord;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * What stays fixed for a leadership: T_a, the epoch guard, how checkpoints are checked, the
 * gap between two ticks that means the leader itself was paused (zero: never assumed; the
 * leadership, whose loop ticks ten times a second, uses {@link CoordinatorState#PAUSE}), and how much later than
 * the survivors a joiner is expected to start its first step ({@link JoinerShare}; 0: unknown,
 * even parts).
 */
public record CoordinatorSettings(Duration switchAllowance, EpochGuard guard, CheckpointCheck checkpointCheck,
    Duration pauseAfter, DoubleSupplier joinLagSeconds) {
  public static final CoordinatorSettings DEFAULT = new CoordinatorSettings(CoordinatorState.DEFAULT_SWITCH_ALLOWANCE, EpochGuard.TRUSTING,
      CheckpointCheck.TRUSTING, Duration.ZERO);

  public CoordinatorSettings(Duration switchAllowance, EpochGuard guard, CheckpointCheck checkpointCheck) {
    this(switchAllowance, guard, checkpointCheck, Duration.ZERO);
  }

  public CoordinatorSettings(Duration switchAllowance, EpochGuard guard, CheckpointCheck checkpointCheck,
      Duration pauseAfter) {
    this(switchAllowance, guard, checkpointCheck, pauseAfter, () -> 0);
  }

  public CoordinatorSettings withSwitchAllowance(Duration d) {
    return new CoordinatorSettings(d, guard, checkpointCheck, pauseAfter, joinLagSeconds);
  }

  public CoordinatorSettings withJoinLag(double seconds) {
    return new CoordinatorSettings(switchAllowance, guard, checkpointCheck, pauseAfter, () -> seconds);
  }
}
