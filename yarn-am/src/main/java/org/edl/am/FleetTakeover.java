package org.edl.am;

import java.util.List;
import java.util.Map;
import org.edl.am.FleetChange.Migration;
import org.edl.am.FleetChange.Restart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a new AM attempt's fleet takes over from the dead one: the workers YARN kept running become
 * the running job with the GPU indices they were launched with, and the change the old attempt
 * had under way, as its {@link FleetJournal} kept it, goes on ({@link FleetChange#takenOver}).
 */
final class FleetTakeover {
  // The fleet's own log: an operator follows one logger for every decision.
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  private FleetTakeover() {}

  /**
   * Takes over from the previous attempts: their growth hold-off and request go on; with no
   * worker left and no stop-resume to finish, the job has either finished before (see
   * {@link #finishedBefore}) or starts anew; otherwise the workers left are adopted.
   *
   * @param intent what the old attempt journalled last; null: nothing
   */
  static void takeOver(FleetState state, OutputCheck output, Map<WorkerContainer, List<Integer>> running,
      FleetIntent intent, java.util.function.Consumer<JobOutcome> finish) {
    if (intent != null) {
      state.growth().holdOffUntil(intent.holdOffUntilMs());
      state.growth().restatedBefore(intent.requestedWorkers());
    }
    if (running.isEmpty() && (intent == null || intent.restart() == null)) {
      if (intent == null || !finishedBefore(output, finish)) {
        state.requestMissing();
      }
      return;
    }
    adopt(state, running, intent);
  }

  /**
   * A later attempt that finds no worker left: if the one before died after training finished
   * (every worker exited 0 and the model was written, but it never unregistered), the output
   * verifies and there is nothing to run again; the job succeeds through {@code finish}.
   * Otherwise (or where the output proves nothing, as a torchrun script's) it starts anew.
   */
  private static boolean finishedBefore(OutputCheck output, java.util.function.Consumer<JobOutcome> finish) {
    if (!output.provesFinished()) {
      return false;
    }
    java.util.Optional<String> problem;
    try {
      problem = output.problem();
    } catch (RuntimeException e) {
      LOG.warn("Could not check the output a previous attempt may have finished: {}", e.toString());
      return false;
    }
    if (problem.isPresent()) {
      return false;
    }
    LOG.info("No worker is left from the previous attempts and the job's output verifies: training had finished");
    finish.accept(JobOutcome.success("training had finished before this ApplicationMaster attempt (the output verifies)"));
    return true;
  }

  /** @param intent what the old attempt journalled last; null: nothing (its target is the workers left) */
  private static void adopt(FleetState state, Map<WorkerContainer, List<Integer>> running, FleetIntent intent) {
    FleetBook book = state.book;
    running.forEach(book::adopt);
    state.moveTo(running.isEmpty() ? WorkerFleet.Phase.STARTING : WorkerFleet.Phase.RUNNING);
    state.event("adopted " + book.size() + " running workers from a previous ApplicationMaster attempt");
    if (intent == null) {
      state.retarget(state.withinLimits(book.size()));
    } else {
      state.retarget(state.withinLimits(intent.target()));
      state.restartsSoFar(intent.restarts());
      state.failures.restore(intent.failures());
      FleetChange taken = intent.change() == null ? null : intent.change().takenOver(book::isLive);
      if (taken != null) {
        state.begin(taken);
        if (taken instanceof Migration m && m.awaited() > 0) {
          book.requested(m.awaited());
          state.driver.requestContainersOn(m.awaited(), state.resource, m.toHost());
        }
      }
      state.event(state.lastEvent() + "; taking over its change (target " + state.target()
          + (taken == null ? "" : ", " + taken.what()) + ")");
    }
    LOG.info("{}: {}; target {}", state.lastEvent(), book.ids(), state.target());
    if (!(state.change() instanceof Restart r) || r.stopping().isEmpty()) {
      // The missing ones join the running ring like scale-out newcomers: a change until it shows them.
      state.replaceMissing();
    }
    state.journal();
  }
}
