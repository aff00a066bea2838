package org.edl.am;

import static org.edl.am.WorkerFleet.error;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.edl.am.FleetChange.Migration;
import org.edl.am.FleetChange.Restart;
import org.edl.am.FleetChange.ScaleIn;
import org.edl.am.FleetChange.ScaleOut;
import org.edl.am.FleetChange.Shown;
import org.edl.job.ScaleMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changes asked of a running job (by a user, a profile, or the scheduler's preemption
 * warnings) and the leader's answers to them: each request is checked against the job's state
 * and limits, refused with an {@link FleetRefusal} that changes nothing, or begun as the fleet's one
 * {@link FleetChange}; the leader is asked for what only it can do (remove a worker at a step,
 * hold a migration's leave, stop every worker with a checkpoint), and its answer, on the main
 * thread, goes on with the change or ends it with nothing changed. The rules are
 * {@link WorkerFleet}'s; this class carries them out.
 */
final class ElasticRequests {
  // The fleet's own log: an operator follows one logger for every decision.
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  private final FleetState state;
  private final WorkerRemoval removal;
  private final JobStopper stopper;
  /** Where stop-resume checkpoints go; null: the job cannot stop-resume. */
  private final String checkpointRoot;
  /**
   * The workers whose leader last refused to stop them for a pause, and why: the same ring is not
   * asked again (a job about to end would be asked on every heartbeat); a changed one is.
   */
  private java.util.Set<String> pauseRefusedFor = java.util.Set.of();
  private String pauseRefusal = "";

  ElasticRequests(FleetState state, WorkerRemoval removal, JobStopper stopper, String checkpointRoot) {
    this.state = state;
    this.removal = removal;
    this.stopper = stopper;
    this.checkpointRoot = checkpointRoot;
  }

  /** See {@link WorkerFleet#scaleOut}. */
  void scaleOut(int count, ScaleMode mode) throws FleetRefusal {
    requireSteadyRunning("scale-out");
    if (count < 1) {
      throw error("count", Integer.toString(count), "scale-out needs a count of at least 1");
    }
    if (state.target() + count > state.maxWorkers) {
      throw error("count", Integer.toString(count), "scale-out by " + count + " would make "
          + (state.target() + count) + " workers, more than max-workers=" + state.maxWorkers);
    }
    if (mode == ScaleMode.STOP_RESUME) {
      restartAt(state.target() + count, null);
      return;
    }
    state.retarget(state.target() + count);
    state.begin(new ScaleOut(count, Shown.since(state.latest())));
    LOG.info("Scaling out by {} to {} workers", count, state.target());
    state.requestMissing();
    state.journal();
  }

  /** See {@link WorkerFleet#scaleIn}. */
  void scaleIn(int count, List<String> containerIds, ScaleMode mode) throws FleetRefusal {
    requireSteadyRunning("scale-in");
    List<String> named = containerIds == null ? List.of() : containerIds;
    if (mode == ScaleMode.STOP_RESUME && !named.isEmpty()) {
      throw error("containerIds", String.join(",", named), "stop-resume restarts every worker,"
          + " so it takes a count, not container ids");
    }
    if (count != 0 && !named.isEmpty()) {
      throw error("containerIds", String.join(",", named), "give a count (" + count
          + ") or container ids, not both");
    }
    List<String> distinct = List.copyOf(new LinkedHashSet<>(named));
    int n = named.isEmpty() ? count : distinct.size();
    String field = named.isEmpty() ? "count" : "containerIds";
    String value = named.isEmpty() ? Integer.toString(count) : String.join(",", named);
    if (named.isEmpty() && count < 1) {
      throw error("count", value, "scale-in needs a count of at least 1 or container ids");
    }
    List<String> running = state.runningWorkers();
    for (String id : distinct) {
      if (!running.contains(id)) {
        throw error("containerIds", id, "not a running worker of this job (workers: "
            + String.join(", ", running) + ")");
      }
    }
    int after = state.target() - n;
    if (after < state.minWorkers) {
      throw error(field, value, "scale-in by " + n + " would leave " + after
          + " workers, fewer than min-workers=" + state.minWorkers);
    }
    state.growth().gaveBack();
    if (mode == ScaleMode.STOP_RESUME) {
      restartAt(after, null);
      return;
    }
    // In a steady job every target worker runs, so min-workers >= 1 leaves enough to pick from.
    List<String> leavers = named.isEmpty() ? newest(running, count) : distinct;
    state.retarget(after);
    state.begin(new ScaleIn(leavers, Shown.since(state.latest())));
    LOG.info("Scaling in to {} workers: removing {}", state.target(), leavers);
    state.journal();
    removal.leave(leavers, new RemovalAnswers());
  }

  /** See {@link WorkerFleet#pause}. */
  void pause(String why) throws FleetRefusal {
    requireSteadyRunning("pause");
    if (!pauseRefusedFor.isEmpty() && pauseRefusedFor.equals(java.util.Set.copyOf(state.book.ids()))) {
      throw error("state", "RUNNING", "the leader refused to stop these workers for a pause (" + pauseRefusal
          + "); a pause is asked for again once the ring has changed");
    }
    restartAt(state.target(), why);
  }

  /**
   * The resource manager took every ring member after its warnings (see
   * {@link ExitVerdict.Kind#PREEMPTED_RELAUNCH}): containers still starting cannot be handed the
   * model and are released, and the job starts again on new ones from its newest checkpoint, as a
   * stop-resume whose stop left none.
   *
   * @return why the job cannot go on (no checkpoint at all); empty once relaunched
   */
  java.util.Optional<String> relaunchWithoutRing(String why) {
    if (checkpointRoot == null) {
      return java.util.Optional.of(why + "; this job has no checkpoint directory to start again from");
    }
    for (WorkerContainer c : state.book.containers()) {
      LOG.info("Releasing {}: it cannot join a ring that is gone", c.id());
      state.book.forget(c);
      state.driver.release(c.id());
    }
    // Nobody writes here: the job's newest earlier checkpoint is taken (FleetState.relaunchFromCheckpoint).
    String directory = checkpointRoot + "/restart-" + state.nextRestart();
    state.begin(new Restart(new StopResume(state.target(), state.target(), directory, why), List.of(), Shown.NOTHING));
    java.util.Optional<String> cannot = state.relaunchFromCheckpoint();
    if (cannot.isEmpty()) {
      String from = ((Restart) state.change()).plan().directory();
      state.event(why + "; relaunching " + state.target() + " workers from the job's newest checkpoint " + from);
      LOG.warn("{}", state.lastEvent());
    }
    state.journal();
    return cannot;
  }

  /** See {@link WorkerFleet#migrate}. */
  void migrate(String fromHost, String toHost) throws FleetRefusal {
    requireSteadyRunning("migrate");
    if (fromHost == null || fromHost.isBlank()) {
      throw error("fromHost", String.valueOf(fromHost), "must name a host");
    }
    if (toHost == null || toHost.isBlank()) {
      throw error("toHost", String.valueOf(toHost), "must name a host");
    }
    if (fromHost.equals(toHost)) {
      throw error("toHost", toHost, "is the host the workers would leave (fromHost=" + fromHost + ")");
    }
    List<String> running = state.runningWorkers();
    List<String> leavers = running.stream().filter(id -> state.book.get(id).host().equals(fromHost)).toList();
    if (leavers.isEmpty()) {
      Set<String> hosts = new LinkedHashSet<>();
      running.forEach(id -> hosts.add(state.book.get(id).host()));
      throw error("fromHost", fromHost, "no worker of this job runs there (workers on: "
          + String.join(", ", hosts) + ")");
    }
    if (leavers.size() >= running.size()) {
      throw error("fromHost", fromHost, "every worker of this job runs there; one must stay to send"
          + " the model to the newcomers (scale out first, then migrate)");
    }
    if (!state.driver.isRunningNode(toHost)) {
      throw error("toHost", toHost, "not a running node of the cluster");
    }
    int asked = state.begin(Migration.asked(fromHost, toHost, leavers, Shown.since(state.latest())));
    LOG.info("Migrating {} from {} to {}: asking the leader to replace them by {} newcomers",
        leavers, fromHost, toHost, leavers.size());
    state.journal();
    removal.replace(leavers, leavers.size(), new ReplacementAnswer(asked));
  }

  /** What the leader said of its ring last, for a person: a ring being rebuilt reports no size (-1). */
  private String ringNow() {
    if (state.latest() == null) {
      return "no report from the leader yet";
    }
    return state.latest().workers() < 0 ? "the leader is rebuilding the ring after a failure"
        : "the leader reports " + state.latest().workers();
  }

  /** Refuses unless the job is RUNNING with no change on its way (the rule every change follows). */
  void requireSteadyRunning(String operation) throws FleetRefusal {
    if (!state.isRunning()) {
      throw error("state", state.phase().name(), operation + " needs a RUNNING job; this one is " + state.phase());
    }
    if (state.change() != null) {
      throw error("state", "SCALING", operation + " must wait: the job is SCALING (" + state.change().what()
          + ", target " + state.target() + " workers; " + ringNow() + ")");
    }
  }

  /**
   * Stop-resume: the leader is asked to checkpoint and stop every worker; each one's exit 0 is
   * then expected, and the last one's starts the relaunch at {@code size}. {@code pausedFor}:
   * see {@link StopResume}.
   */
  private void restartAt(int size, String pausedFor) throws FleetRefusal {
    if (checkpointRoot == null) {
      throw error("mode", ScaleMode.STOP_RESUME.name(), "this job has no checkpoint directory");
    }
    String directory = checkpointRoot + "/restart-" + state.nextRestart();
    state.begin(new Restart(new StopResume(size, state.target(), directory, pausedFor), List.copyOf(state.book.ids()),
        Shown.since(state.latest())));
    state.retarget(size);
    if (pausedFor != null) {
      LOG.info("Pausing ({}): asking the leader to stop every worker with a checkpoint in {}; the job then asks"
          + " for {} containers again and resumes from it on them", pausedFor, directory, size);
    } else {
      LOG.info("Stop-resume to {} workers: asking the leader to stop every worker with a checkpoint in {}",
          size, directory);
    }
    state.journal();
    stopper.stopForRestart(directory, new StopAnswer());
  }

  private static List<String> newest(List<String> running, int count) {
    List<String> newest = new ArrayList<>();
    for (int i = running.size() - 1; i >= 0 && newest.size() < count; i--) {
      newest.add(running.get(i));
    }
    return newest;
  }

  /** The leader's answer to the migration begun as change number {@code asked}, on the main thread. */
  private final class ReplacementAnswer implements WorkerRemoval.ReplacementAnswer {
    private final int asked;

    ReplacementAnswer(int asked) {
      this.asked = asked;
    }

    @Override
    public void accepted(long atStep) {
      if (!state.isCurrent(asked) || !(state.change() instanceof Migration m) || state.isDone() || !state.isRunning()) {
        return;
      }
      // Only now: a newcomer started before the leader held the leave would join on its own.
      Migration held = m.heldByLeader();
      state.evolve(held);
      state.book.requested(held.awaited());
      LOG.info("The leader holds the leave of {}; requesting {} containers on {}", held.leavers(),
          held.awaited(), held.toHost());
      state.driver.requestContainersOn(held.awaited(), state.resource, held.toHost());
      state.journal();
    }

    @Override
    public void refused(Exception cause) {
      if (!state.isCurrent(asked) || !(state.change() instanceof Migration m) || state.isDone()) {
        return;
      }
      state.end();
      state.event(m.what() + " did not start: the leader did not accept it (" + cause + ")");
      LOG.warn(state.lastEvent());
      state.replaceMissing();
      state.journal();
    }
  }

  /** The leader's answers to a scale-in's removals, on the main thread. */
  private final class RemovalAnswers implements WorkerRemoval.Answers {
    @Override
    public void accepted(String containerId, long atStep) {
      LOG.info("{} leaves {}", containerId, atStep < 0 ? "with the pending change" : "at step " + atStep);
    }

    @Override
    public void refused(String containerId, Exception cause) {
      if (!(state.change() instanceof ScaleIn s) || s.departureOf(containerId) == null || state.isDone()
          || !state.book.isLive(containerId)) {
        return;
      }
      // The worker stays in the ring, so it counts again; the operator sees why in the log.
      state.evolve(s.staying(containerId));
      state.retarget(state.target() + 1);
      state.event("worker container " + containerId + " stays in the job: the leader did not accept"
          + " its leave (" + cause + ")");
      LOG.warn("{}; target back to {}", state.lastEvent(), state.target());
      state.settle();
    }
  }

  /** The leader's answer to a stop-resume, on the main thread. */
  private final class StopAnswer implements JobStopper.Answer {
    @Override
    public void accepted(long atStep) {
      if (state.change() instanceof Restart r) {
        state.event("every worker stops after step " + atStep + " (checkpoint in " + r.plan().directory() + ")");
      }
    }

    @Override
    public void refused(Exception cause) {
      if (!(state.change() instanceof Restart r) || state.isDone()) {
        return;
      }
      state.retarget(r.plan().previousTarget());
      state.end();
      if (r.plan().pausedFor() != null) {
        pauseRefusedFor = java.util.Set.copyOf(r.stopping());
        pauseRefusal = String.valueOf(cause);
      }
      state.event("stop-resume to " + r.plan().size() + " workers did not happen: the leader did not"
          + " accept the stop (" + cause + ")");
      LOG.warn(state.lastEvent());
      state.replaceMissing();
      state.journal();
    }
  }
}
