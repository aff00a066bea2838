package org.edl.bench.chaos;

import java.util.Locale;

/**
 * One fault of a chaos run: what happens, how many seconds after training started, and for a
 * pause how long the process stays stopped.
 *
 * @param atSeconds    seconds after the job was first seen training
 * @param kind         what is done, and to whom
 * @param pauseSeconds SIGSTOP to SIGCONT for a pause; 0 for a kill
 */
public record Fault(double atSeconds, Kind kind, double pauseSeconds) {

  /** Kinds of fault; the leader and the AM are found at the moment the fault happens. */
  public enum Kind {
    /** SIGKILL of a worker that is not the leader. */
    KILL_WORKER("kill-worker"),
    /** SIGKILL of the leader's container. */
    KILL_LEADER("kill-leader"),
    /** SIGKILL of the ApplicationMaster; YARN starts its second attempt, which adopts the workers. */
    KILL_AM("kill-am"),
    /** SIGSTOP of a follower, SIGCONT after the pause. */
    PAUSE_WORKER("pause-worker"),
    /** SIGSTOP of the leader, SIGCONT after the pause. */
    PAUSE_LEADER("pause-leader");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** As in the compact form, {@code kill-worker}. */
    public String label() {
      return label;
    }

    public boolean isPause() {
      return this == PAUSE_WORKER || this == PAUSE_LEADER;
    }
  }

  public Fault {
    if (kind == null) {
      throw new IllegalArgumentException("a fault needs a kind");
    }
    if (!(atSeconds >= 0)) {
      throw new IllegalArgumentException("atSeconds must be 0 or more: " + atSeconds);
    }
    if (kind.isPause() ? !(pauseSeconds > 0) : pauseSeconds != 0) {
      throw new IllegalArgumentException(kind.label() + " with pause " + pauseSeconds
          + "s: a pause lasts more than 0 s, a kill has none");
    }
  }

  /**
   * Worker failures this fault costs the job's {@code max-worker-failures}: a killed worker or
   * leader is one; a worker paused for longer than the time the job takes to declare it failed
   * is one too (it is fenced out and exits when it continues), a shorter pause none; the AM is
   * not a worker.
   */
  public int workerFailures(double detectSeconds) {
    return switch (kind) {
      case KILL_WORKER, KILL_LEADER -> 1;
      case PAUSE_WORKER, PAUSE_LEADER -> pauseSeconds > detectSeconds ? 1 : 0;
      case KILL_AM -> 0;
    };
  }

  /** {@code kill-worker@12.3} or {@code pause-leader@30.1/25s}. */
  public String compact() {
    String at = String.format(Locale.ROOT, "%s@%.1f", kind.label(), atSeconds);
    return kind.isPause() ? at + String.format(Locale.ROOT, "/%.0fs", pauseSeconds) : at;
  }

  @Override
  public String toString() {
    return compact();
  }
}
