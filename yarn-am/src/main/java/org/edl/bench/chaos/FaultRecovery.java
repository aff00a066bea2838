package org.edl.bench.chaos;

import java.util.Locale;
import java.util.Set;
import org.edl.thrift.JobStatus;

/**
 * One fault of a run as it was applied, and when the job had got over it, from what the AM
 * reported. The job is healthy at a poll when its step has passed the step it had at the fault,
 * the leader reports the target number of workers, the AM has counted no worker failure since
 * the poll before ({@link WorkerFailureCount}; not the container list: at the end of training
 * the workers leave it exiting 0, which is no failure), and
 * <ul>
 *   <li>after a kill of a worker or the leader: the victim is gone from the AM's containers and
 *       a container that was not there at the fault is (the replacement);</li>
 *   <li>after a pause: the process was continued;</li>
 *   <li>after an AM kill: a new AM attempt answers.</li>
 * </ul>
 * The recovery ends where the last healthy stretch before the next fault (or the end of the run)
 * begins, not at the first healthy poll: a leader reports its ring before it notices a death,
 * and a paused leader, continued, first reports the old ring and only then fences the workers
 * that waited for it, so a first healthy poll can come before most of the recovery. Pure: fed
 * {@link Observation}s, no clock of its own.
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
  /** Start of the current healthy stretch; NaN while the job is not healthy. */
  private double healthySince = Double.NaN;
  private int previousFailures;
  /** The condition that held the job back at the poll before; empty if none did. */
  private String holdingBack = "";
  /** Why observing stopped: the next fault, or the end of the run; empty while observing. */
  private String closedBy = "";

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
    FaultRecovery r = new FaultRecovery(fault, victim, seconds, "", step,
        s == null ? Set.of() : Set.copyOf(s.getContainers()), before.attemptId());
    r.previousFailures = workerFailuresIn(s);
    return r;
  }

  /** A fault that could not be applied (no victim found, the job already over, a signal refused). */
  public static FaultRecovery notApplied(Fault fault, String why) {
    return new FaultRecovery(fault, null, Double.NaN, why, -1, Set.of(), null);
  }

  /** The paused process was continued at {@code seconds}. */
  public void resumed(double seconds) {
    resumedAt = seconds;
  }

  /**
   * Takes one poll into account, until {@link #close}.
   *
   * @return what changed, for the log: the job became healthy, or stopped being healthy or is
   *         held back by another condition than at the poll before (the condition named); empty
   *         when nothing changed
   */
  public String observe(Observation o) {
    if (!wasApplied() || !closedBy.isEmpty() || o.seconds() < appliedAt) {
      return "";
    }
    String unhealthy = whyNotHealthy(o);
    String condition = unhealthy.isEmpty() ? "" : unhealthy.substring(0, unhealthy.indexOf(':'));
    String change = "";
    if (unhealthy.isEmpty() && Double.isNaN(healthySince)) {
      healthySince = o.seconds();
      change = "healthy";
    } else if (!unhealthy.isEmpty() && (!Double.isNaN(healthySince) || !condition.equals(holdingBack))) {
      healthySince = Double.NaN;
      change = "not healthy, " + unhealthy;
    }
    holdingBack = condition;
    if (o.status() != null) {
      previousFailures = workerFailuresIn(o.status());
    }
    return change;
  }

  /**
   * Stops observing: the next fault is about to be applied, or the run is over. A job that is
   * not healthy then did not get over this fault.
   *
   * @param by what ended it, for {@link #describe}: "the next fault", "the end"
   */
  public void close(String by) {
    if (closedBy.isEmpty()) {
      closedBy = by;
    }
  }

  /** Empty when healthy, else "condition: details", the first condition that does not hold. */
  private String whyNotHealthy(Observation o) {
    JobStatus s = o.status();
    if (s == null || !s.isSetProgress()) {
      return "status: the AM " + (s == null ? "did not answer" : "has no progress to report");
    }
    long step = s.getProgress().getStep();
    if (step <= stepAtFault) {
      return "step: " + step + ", not past " + stepAtFault;
    }
    if (s.getProgress().getWorkers() != s.getTargetWorkers()) {
      return "workers: " + s.getProgress().getWorkers() + " of " + s.getTargetWorkers();
    }
    if (workerFailuresIn(s) != previousFailures) {
      return "failures: the AM counted a worker failure (" + workerFailuresIn(s) + " now)";
    }
    return faultSettled(o) ? "" : "fault: " + unsettled();
  }

  private String unsettled() {
    return switch (fault.kind()) {
      case KILL_WORKER, KILL_LEADER -> victim + " not yet replaced";
      case PAUSE_WORKER, PAUSE_LEADER -> "not continued yet";
      case KILL_AM -> "no new AM attempt yet";
    };
  }

  /** The worker failures the AM has counted, from its status. */
  static int workerFailuresIn(JobStatus s) {
    return s == null || !s.isSetDiagnostics() ? 0 : WorkerFailureCount.in(s.getDiagnostics());
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

  /** Healthy at the last poll (once closed: got over the fault). */
  public boolean isRecovered() {
    return !Double.isNaN(healthySince);
  }

  /** Seconds from the fault to the job being over it; NaN if it was not applied or is not over it. */
  public double recoverySeconds() {
    return healthySince - appliedAt;
  }

  /** For the note: {@code kill-worker@12.3 on container_..._000003: recovered in 14.2 s}. */
  public String describe() {
    if (!wasApplied()) {
      return fault.compact() + ": not applied (" + notApplied + ")";
    }
    String on = fault.compact() + " on " + victim + String.format(Locale.ROOT, " at %.1f s", appliedAt);
    return isRecovered() ? on + String.format(Locale.ROOT, ": recovered in %.1f s", recoverySeconds())
        : on + ": not recovered by " + (closedBy.isEmpty() ? "now" : closedBy);
  }
}
