package org.edl.am;

import java.util.List;
import java.util.Optional;
import org.edl.job.ScaleMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the fleet's {@link GrowthPolicy}: a job training at its minimum counts as RUNNING,
 * an extra is asked for when the policy says so, a granted one joins by a stop-free scale-out of
 * one, and every give-back starts the hold-off and withdraws the extra in flight. Without a
 * policy ({@code policy} null) it does nothing. Main thread only, like the fleet.
 */
final class FleetGrowth {
  // The fleet's own log: an operator follows one logger for every decision.
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  private final FleetState state;
  /** Null: the job never asks for workers by itself. */
  private final GrowthPolicy policy;
  /** Carries out a stop-resume growth (the baseline's way to take a granted extra). */
  private final ElasticRequests requests;
  /** The policy's last decision, logged when its kind changes. */
  private GrowthPolicy.Decision last;
  /** The number of the change in which granted extras join ({@link FleetState#begin}); -1: none yet. */
  private int growing = -1;

  FleetGrowth(FleetState state, GrowthPolicy policy, ElasticRequests requests) {
    this.state = state;
    this.policy = policy;
    this.requests = requests;
  }

  /** How the job changes its size by itself (grows, gives back when warned). */
  ScaleMode mode() {
    return policy == null ? ScaleMode.EDL : policy.mode();
  }

  /**
   * The leader trains with fewer than the target (it started at the minimum): the job is RUNNING.
   * The workers launched so far are its target (the ones not in the ring yet join by themselves, a
   * scale-out until they have); what YARN has not granted yet is withdrawn, to be asked for one
   * at a time at the extras' lower priority, so that a job never waits SCALING for GPUs that may
   * not come.
   */
  void onReport(LeaderReport report) {
    if (policy == null || state.phase() != WorkerFleet.Phase.STARTING || report.workers() < state.minWorkers
        || report.workers() >= state.target()) {
      return;
    }
    state.moveTo(WorkerFleet.Phase.RUNNING);
    int wanted = state.target();
    if (state.book.outstanding() > 0) {
      state.driver.withdrawRequests();
      state.book.withdrawn();
    }
    state.retarget(state.book.size());
    state.event("training started with " + report.workers() + " of " + wanted + " workers");
    LOG.info("Training started with {} of {} workers; {} launched in all; the rest is asked for one at a time",
        report.workers(), wanted, state.target());
    if (state.target() > report.workers()) {
      state.begin(new FleetChange.ScaleOut(state.target() - report.workers(), FleetChange.Shown.since(report)));
    }
    state.journal();
  }

  /** Asks YARN for more workers, as elastic extras, when the policy says so. */
  void ask() {
    if (policy == null || state.isDone()) {
      return;
    }
    Optional<String> giveBack = policy.giveBackLast(state.target(), state.isSteady());
    if (giveBack.isPresent()) {
      giveBackLast(giveBack.get());
      return;
    }
    GrowthPolicy.Decision d = policy.next(state.target(), state.isSteady());
    if (last == null || last.ask() != d.ask() || last.reason() != d.reason()) {
      LOG.info("Growth: {}", d.why());
    }
    last = d;
    if (d.ask()) {
      policy.asked(d.count());
      if (d.count() == 1) {
        LOG.info("Asking YARN for one more worker container of {} as an elastic extra", state.resource);
      } else {
        LOG.info("Asking YARN for {} more worker containers of {} as elastic extras", d.count(), state.resource);
      }
      for (int i = 0; i < d.count(); i++) {
        state.driver.requestExtraContainer(state.resource);
      }
    }
  }

  /** The extra that took the job to its size did not pay: the newest worker leaves, as a user's scale-in of one. */
  private void giveBackLast(String why) {
    LOG.info("Giving back the last extra: {}", why);
    try {
      requests.scaleIn(1, List.of(), mode());
      state.event("gave back the last extra worker: " + why);
    } catch (FleetRefusal e) {
      LOG.info("Not giving back the last extra now: {}", e.getMessage());
    }
  }

  /**
   * A granted extra joins by a stop-free scale-out of one, or, while the scale-out of an earlier
   * extra of the same request is under way, joins that change; it is released if the job cannot
   * change now.
   */
  void granted(WorkerContainer c) {
    if (policy != null) {
      policy.answered();
    }
    if (policy != null && !state.isDone() && state.target() < state.maxWorkers && state.isCurrent(growing)
        && state.change() instanceof FleetChange.ScaleOut s && mode() == ScaleMode.EDL) {
      state.evolve(new FleetChange.ScaleOut(s.count() + 1, s.shown()));
      join(c, "joins the scale-out under way");
      return;
    }
    if (state.isDone() || !state.isSteady() || state.target() >= state.maxWorkers) {
      LOG.info("Releasing extra {} on {}: the job cannot grow now (phase {}, {}, {} of max {} workers)", c.id(),
          c.host(), state.phase(), state.change() == null ? "no change under way" : state.change().what(), state.target(),
          state.maxWorkers);
      state.driver.release(c.id());
      return;
    }
    if (mode() == ScaleMode.STOP_RESUME) {
      // The baseline cannot add one worker to a running ring: it restarts every worker at the new
      // size. The extra goes back and the relaunch asks for all of them, this one's GPU included.
      LOG.info("Growing to {} workers by stop-resume: releasing extra {} on {}, restarting every worker",
          state.target() + 1, c.id(), c.host());
      state.driver.release(c.id());
      try {
        requests.scaleOut(1, ScaleMode.STOP_RESUME);
        state.event("grew into an idle GPU by stop-resume: restarting at " + state.target() + " workers");
      } catch (FleetRefusal e) {
        LOG.info("Not growing by stop-resume now: {}", e.getMessage());
      }
      return;
    }
    growing = state.begin(new FleetChange.ScaleOut(1, FleetChange.Shown.since(state.latest())));
    join(c, "joins stop-free");
  }

  /** Granted extra {@code c} becomes the job's next worker, in the scale-out now under way. */
  private void join(WorkerContainer c, String how) {
    state.retarget(state.target() + 1);
    policy.grew(state.target());
    state.event("grew into an idle GPU: " + c.id() + " on " + c.host() + " joins as worker " + state.target());
    LOG.info("Growing to {} workers: {} on {} {}", state.target(), c.id(), c.host(), how);
    state.launch(c);
    state.journal();
  }

  /** Until when nothing is asked (wall clock, ms; 0: no hold-off), for the journal. */
  long holdOffUntilMs() {
    return policy == null ? 0 : policy.holdOffUntilMs();
  }

  /** See {@link GrowthPolicy#restatedRequest}, for the journal. */
  int restatedRequest() {
    return policy == null ? 0 : policy.restatedRequest();
  }

  /** The job's user set its size by hand ({@link GrowthPolicy#requestIs}); journaled, so a new attempt keeps it. */
  void requestIs(int workers) {
    if (policy != null) {
      policy.requestIs(workers);
      state.journal();
    }
  }

  /** Takes over the size a previous AM attempt's user set by hand (0: none). */
  void restatedBefore(int workers) {
    if (policy != null && workers > 0) {
      policy.requestIs(workers);
    }
  }

  /** Takes over the hold-off a previous AM attempt journaled. */
  void holdOffUntil(long untilMs) {
    if (policy != null) {
      policy.holdOffUntil(untilMs);
    }
  }

  /** The job gives workers back: nothing is asked for during the hold-off, and the extra in flight is withdrawn. */
  void gaveBack() {
    if (policy == null) {
      return;
    }
    policy.gaveBack();
    if (policy.inFlight()) {
      state.driver.withdrawExtraRequest();
      policy.withdrawn();
    }
    state.journal(); // the hold-off outlives this AM attempt
  }

  /** While a profile changes the job's size, nothing is asked for. */
  void pause(boolean pause) {
    if (policy != null) {
      policy.pause(pause);
    }
  }
}
