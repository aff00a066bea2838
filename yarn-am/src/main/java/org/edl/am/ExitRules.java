package org.edl.am;

import static org.edl.am.ExitVerdict.Kind.AFTER_TRAINING;
import static org.edl.am.ExitVerdict.Kind.FAILURE_FATAL;
import static org.edl.am.ExitVerdict.Kind.FAILURE_REPLACE;
import static org.edl.am.ExitVerdict.Kind.FAILURE_REPLACE_ON_HOST;
import static org.edl.am.ExitVerdict.Kind.FINISHED_TRAINING;
import static org.edl.am.ExitVerdict.Kind.IGNORE;
import static org.edl.am.ExitVerdict.Kind.LEFT;
import static org.edl.am.ExitVerdict.Kind.PREEMPTED_RELAUNCH;
import static org.edl.am.ExitVerdict.Kind.PREEMPTED_SHRINK;
import static org.edl.am.ExitVerdict.Kind.REMOVED_REPLACE;
import static org.edl.am.ExitVerdict.Kind.REMOVED_SHRINK;
import static org.edl.am.ExitVerdict.Kind.STOPPED_FOR_RESTART;

import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.edl.am.FleetChange.Departure;
import org.edl.job.WorkerEnv;

/**
 * What a worker container's end means for the job, as one pure function of how it ended, what the
 * fleet knows of it, and what the fleet knows of itself (the leader's latest report included).
 * {@link WorkerFleet} gathers the facts and carries the verdict out; every rule is here.
 *
 * <p>In order: after the job ended, or for a container the fleet no longer holds, nothing. A
 * container the change under way expects to leave is gone when it exits 0 or
 * {@link WorkerEnv#EXIT_LEFT}, or is preempted (the resource manager took one that was leaving
 * anyway), except that a stop-resume's stopper must stop by itself, with its checkpoint. An
 * {@code EXIT_LEFT} nobody asked for is a worker the leader removed on its own. A PREEMPTED
 * container the resource manager warned of while the job ran shrinks the job. Any other exit 0
 * means training finished.
 *
 * <p>Anything else (a non-zero exit, a kill, a lost node, an unwarned preemption, a container
 * that could not start) is a worker failure. A newcomer that never joined the ring before
 * training finished is not counted; any other failure after training finished is counted and
 * nothing more (a worker exits 0 only once the model is written, so the job's end is decided by
 * its output). The job fails beyond {@code --max-worker-failures}, and with no ring member left
 * to hand the model to a replacement. Otherwise nothing waits for what cannot come: a leaver has
 * left, a stopper has stopped, a migration newcomer is replaced on the target host, anybody else
 * by one new container.
 */
final class ExitRules {
  private ExitRules() {}

  static ExitVerdict judge(ContainerExit exit, ContainerFacts c, FleetFacts fleet) {
    WorkerFleet.Phase phase = fleet.phase();
    if (phase == WorkerFleet.Phase.SUCCEEDED || phase == WorkerFleet.Phase.FAILED) {
      return ExitVerdict.of(IGNORE, "the job has ended");
    }
    if (!c.known()) {
      return ExitVerdict.of(IGNORE, "not a container the fleet holds (released, or reported before)");
    }
    if (exit.started()) {
      Departure d = c.departure();
      if (d != null && (exit.is(WorkerEnv.EXIT_OK) || exit.is(WorkerEnv.EXIT_LEFT)
          || exit.is(ContainerExitStatus.PREEMPTED) && d != Departure.RESTART)) {
        return d == Departure.RESTART
            ? ExitVerdict.of(STOPPED_FOR_RESTART, "it stopped for the stop-resume")
            : ExitVerdict.of(LEFT, "its departure is complete");
      }
      if (exit.is(WorkerEnv.EXIT_LEFT)) {
        // Training goes on after a removal, so this is no "training finished".
        if (phase == WorkerFleet.Phase.FINISHING) {
          return ExitVerdict.of(AFTER_TRAINING, "the leader removed it after training finished");
        }
        return fleet.replaceRemoved()
            ? ExitVerdict.of(REMOVED_REPLACE, "the leader removed it; requesting a replacement")
            : ExitVerdict.of(REMOVED_SHRINK, "the leader removed it; the target shrinks");
      }
      if (exit.is(ContainerExitStatus.PREEMPTED) && c.warned()
          && (phase == WorkerFleet.Phase.RUNNING || phase == WorkerFleet.Phase.STARTING)) {
        // Warned while another change was under way, or before the first ring formed (nothing to
        // stop with a checkpoint yet), so never asked to leave: the scheduler's doing, no failure.
        if (!modelSurvives(fleet)) {
          // The whole ring went that way (a pause that could not begin): new workers would wait
          // for a ring that is gone, so the model comes from the newest checkpoint instead.
          return ExitVerdict.of(PREEMPTED_RELAUNCH, "preempted by the scheduler after its warning, and no ring"
              + " member is left to hand the model on: every worker starts again from the newest checkpoint");
        }
        return ExitVerdict.of(PREEMPTED_SHRINK, "preempted by the scheduler after its warning");
      }
      if (exit.is(WorkerEnv.EXIT_OK)) {
        return ExitVerdict.of(FINISHED_TRAINING, "it finished training");
      }
    }
    return failure(c, fleet);
  }

  private static ExitVerdict failure(ContainerFacts c, FleetFacts fleet) {
    boolean finished = fleet.phase() == WorkerFleet.Phase.FINISHING;
    if (finished && c.newcomer() && !fleet.leaderNames(c.containerId())) {
      return ExitVerdict.of(AFTER_TRAINING, "it had not joined the ring before training finished");
    }
    if (finished) {
      // A worker exits 0 only once the model is written: whatever ends after that cannot take the
      // model with it, and the job's end is decided by its output (OutputCheck).
      return ExitVerdict.failure(AFTER_TRAINING, "it failed after training finished and the model was written");
    }
    int failures = fleet.failures() + (c.counted() ? 0 : 1);
    if (failures > fleet.failuresAllowed()) {
      return ExitVerdict.failure(FAILURE_FATAL, "more worker failures (" + failures + ") than"
          + " max-worker-failures=" + fleet.failuresAllowed() + " allows");
    }
    if (!modelSurvives(fleet)) {
      return ExitVerdict.failure(FAILURE_FATAL, "no running worker is left to hand the model on");
    }
    if (c.departure() == Departure.RESTART) {
      return ExitVerdict.failure(STOPPED_FOR_RESTART, "it counts as stopped for the stop-resume");
    }
    if (c.departure() != null) {
      return ExitVerdict.failure(LEFT, "it was leaving the job; nothing is replaced");
    }
    return c.migrationNewcomer()
        ? ExitVerdict.failure(FAILURE_REPLACE_ON_HOST, "requesting a replacement on the migration's target host")
        : ExitVerdict.failure(FAILURE_REPLACE, "requesting a replacement");
  }

  /**
   * Whether a worker still holds the model to hand to a replacement: another ring member (one the
   * fleet counts in the ring, or one the leader's latest report names); or nobody needs one yet
   * (the job is starting, or a stop-resume loads its checkpoint).
   */
  private static boolean modelSurvives(FleetFacts fleet) {
    return fleet.phase() == WorkerFleet.Phase.STARTING || fleet.restartUnderWay()
        || !fleet.othersInRing().isEmpty() || fleet.othersJoining().stream().anyMatch(fleet::leaderNames);
  }
}
