package org.edl.bench.chaos;

import java.util.Locale;
import java.util.Set;
import org.edl.thrift.JobStatus;

/**
 * One fault of a run as it was applied, and when the job had got over it, from what the AM
 * reported: the job is over a fault when its step has passed the step it had at the fault and
 * the leader reports the target number of workers again, and, so that a report the leader made
 * before it noticed the fault is not taken for the recovery,
 * <ul>
 *   <li>after a kill of a worker or the leader: the victim is gone from the AM's containers and
 *       a container that was not there at the fault is (the replacement);</li>
 *   <li>after a pause: the process was continued (a long pause's victim is fenced then and
 *       replaced, and the ring is short of it until the replacement joins);</li>
 *   <li>after an AM kill: a new AM attempt answers.</li>
 * </ul>
 * Pure: fed {@link Observation}s, no clock of its own.
 */
public final class FaultRecovery {

  /**
   * What the bench saw at one poll.
   *
   * @param seconds   since training started
   * @param status    the AM's status; null when the AM did not answer (being replaced)
   * @param attemptId the application's current attempt, from the ResourceManager
   */
  public record Observation(double seconds, JobStatus status, String attemptId) {}

  private final Fault fault;
  private final String victim;
  private final double appliedAt;
  private final String notApplied;
  private final long stepAtFault;
  private final Set<String> containersAtFault;
  private final String attemptAtFault;
  private double resumedAt = Double.NaN;
  private double recoveredAt = Double.NaN;

  private FaultRecovery(Fault fault, String victim, double appliedAt, String notApplied, long stepAtFault,
      Set<String> containersAtFault, String attemptAtFault) {
    this.fault = fault;
    this.victim = victim;
    this.appliedAt = appliedAt;
    this.notApplied = notApplied;
    this.stepAtFault = stepAtFault;
    this.containersAtFault = Set.copyOf(containersAtFault);
    this.attemptAtFault = attemptAtFault;
  }

  /**
   * A fault that was applied.
   *
   * @param victim  the container hit
   * @param seconds when, since training started
   * @param before  the last observation before it (the step and containers it had)
   */
  public static FaultRecovery applied(Fault fault, String victim, double seconds, Observation before) {
    JobStatus s = before.status();
    long step = s != null && s.isSetProgress() ? s.getProgress().getStep() : -1;
    return new FaultRecovery(fault, victim, seconds, "", step,
        s == null ? Set.of() : Set.copyOf(s.getContainers()), before.attemptId());
  }

  /** A fault that could not be applied (no victim found, the job already over, a signal refused). */
  public static FaultRecovery notApplied(Fault fault, String why) {
    return new FaultRecovery(fault, null, Double.NaN, why, -1, Set.of(), null);
  }

  /** The paused process was continued at {@code seconds}. */
  public void resumed(double seconds) {
    resumedAt = seconds;
  }

  /** Takes one poll into account; the first that shows the job over the fault sets the recovery. */
  public void observe(Observation o) {
    if (!wasApplied() || isRecovered() || o.seconds() < appliedAt) {
      return;
    }
    JobStatus s = o.status();
    if (s == null || !s.isSetProgress()) {
      return;
    }
    boolean training = s.getProgress().getStep() > stepAtFault && s.getProgress().getWorkers() == s.getTargetWorkers();
    if (training && faultSettled(o)) {
      recoveredAt = o.seconds();
    }
  }

  private boolean faultSettled(Observation o) {
    return switch (fault.kind()) {
      case KILL_WORKER, KILL_LEADER -> !o.status().getContainers().contains(victim)
          && o.status().getContainers().stream().anyMatch(c -> !containersAtFault.contains(c));
      case PAUSE_WORKER, PAUSE_LEADER -> !Double.isNaN(resumedAt) && o.seconds() >= resumedAt;
      case KILL_AM -> o.attemptId() != null && !o.attemptId().equals(attemptAtFault);
    };
  }

  public Fault fault() {
    return fault;
  }

  /** The container hit; null if the fault was not applied. */
  public String victim() {
    return victim;
  }

  public boolean wasApplied() {
    return notApplied.isEmpty();
  }

  public boolean isRecovered() {
    return !Double.isNaN(recoveredAt);
  }

  /** Seconds from the fault to the job being over it; NaN if it was not applied or never got over it. */
  public double recoverySeconds() {
    return recoveredAt - appliedAt;
  }

  /** For the note: {@code kill-worker@12.3 on container_..._000003: recovered in 14.2 s}. */
  public String describe() {
    if (!wasApplied()) {
      return fault.compact() + ": not applied (" + notApplied + ")";
    }
    String on = fault.compact() + " on " + victim + String.format(Locale.ROOT, " at %.1f s", appliedAt);
    return isRecovered() ? on + String.format(Locale.ROOT, ": recovered in %.1f s", recoverySeconds())
        : on + ": not recovered by the end";
  }
}
