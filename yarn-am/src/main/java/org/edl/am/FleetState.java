package org.edl.am;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.edl.am.FleetChange.Replacement;
import org.edl.am.FleetChange.Restart;
import org.edl.am.FleetChange.Shown;
import org.edl.job.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the fleet steers by, shared by {@link WorkerFleet} (what YARN reports) and
 * {@link ElasticRequests} (the changes users and the scheduler ask for): the target, the phase,
 * the one change under way, the leader's latest report and the last event for the status; and
 * the steps every decision ends with: request what is missing, launch, end the change once it has
 * landed, journal the intent for a later AM attempt. It decides nothing by itself. Main thread
 * only, like the fleet.
 */
final class FleetState {
  // The fleet's own log: an operator follows one logger for every decision.
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  final ContainerDriver driver;
  final WorkerResource resource;
  final int minWorkers;
  final int maxWorkers;
  final FleetBook book = new FleetBook();
  private final FleetJournal journal;
  /** Worker failures counted so far, in this attempt and the ones before it. */
  final WorkerFailures failures;
  /** The intent last given to {@link #journal}; null: none yet. */
  private FleetIntent journaled;
  /** The workers the job wants now; changed only by {@link #retarget}. */
  private int target;
  /** Stop-resume changes so far: each gets its own checkpoint directory. */
  private int restarts;
  private WorkerFleet.Phase phase = WorkerFleet.Phase.STARTING;
  /** The change under way; null: none. Changed only by {@link #begin}, {@link #evolve} and {@link #end}. */
  private FleetChange change;
  /** Changes begun so far: a leader's answer names the one it answers. */
  private int begun;
  /** The leader's latest progress report; null before the first. */
  private LeaderReport latest;
  /** What the last change did, for the status while the job runs (a departure, a refused leave). */
  private String lastEvent = "";
  /** How the job asks for workers by itself; set once, as the fleet is built ({@link #growWith}). */
  private FleetGrowth growth;
  /** The checkpoint the job's first workers start from ({@code edl submit --resume-from}); null: none. */
  private final String resumeFrom;
  /** Where a stop-resume's new workers start from (see {@link RestartSource}). */
  private final RestartSource restartSource;

  FleetState(ContainerDriver driver, FleetSettings settings) {
    this.driver = driver;
    this.resource = settings.resource();
    this.target = settings.targetWorkers();
    this.minWorkers = settings.minWorkers();
    this.maxWorkers = settings.maxWorkers();
    this.journal = settings.journal();
    this.failures = new WorkerFailures(settings.allowedFailures());
    this.resumeFrom = settings.resumeFrom();
    this.restartSource = settings.restartSource();
  }

  /** The growth needs the fleet's requests, built on this state: so it comes second, once. */
  void growWith(FleetGrowth g) {
    if (growth != null) {
      throw new IllegalStateException("the fleet's growth is set once");
    }
    growth = g;
  }

  FleetGrowth growth() {
    return growth;
  }

  /**
   * Where the job may go from each phase: on once its first workers started (or its first ring
   * trains at the minimum), finishing once a worker ends training, and to an end from anywhere
   * before one. Nothing goes back.
   */
  private static final Map<WorkerFleet.Phase, java.util.Set<WorkerFleet.Phase>> MOVES = Map.of(
      WorkerFleet.Phase.STARTING, java.util.EnumSet.of(WorkerFleet.Phase.RUNNING, WorkerFleet.Phase.FINISHING,
          WorkerFleet.Phase.SUCCEEDED, WorkerFleet.Phase.FAILED),
      WorkerFleet.Phase.RUNNING, java.util.EnumSet.of(WorkerFleet.Phase.FINISHING, WorkerFleet.Phase.SUCCEEDED,
          WorkerFleet.Phase.FAILED),
      WorkerFleet.Phase.FINISHING, java.util.EnumSet.of(WorkerFleet.Phase.SUCCEEDED, WorkerFleet.Phase.FAILED),
      WorkerFleet.Phase.SUCCEEDED, java.util.EnumSet.noneOf(WorkerFleet.Phase.class),
      WorkerFleet.Phase.FAILED, java.util.EnumSet.noneOf(WorkerFleet.Phase.class));

  /** The number of the next stop-resume change, the name of its checkpoint directory. */
  int nextRestart() {
    return ++restarts;
  }

  /** A new AM attempt goes on counting where the previous one's journal left off. */
  void restartsSoFar(int count) {
    restarts = count;
  }

  LeaderReport latest() {
    return latest;
  }

  /** What the fleet steers by from now on: the leader's newest report. */
  void reported(LeaderReport report) {
    latest = report;
  }

  String lastEvent() {
    return lastEvent;
  }

  /** What just happened to the job, for its status until the next event. */
  void event(String what) {
    lastEvent = what;
  }

  int target() {
    return target;
  }

  /** The job now wants {@code workers}: one or more, never past max-workers (the callers keep min-workers). */
  void retarget(int workers) {
    if (workers < 1 || workers > maxWorkers) {
      throw new IllegalStateException("a target of " + workers + " workers is outside 1.." + maxWorkers);
    }
    target = workers;
  }

  WorkerFleet.Phase phase() {
    return phase;
  }

  /**
   * The one place the job's phase changes; staying where it is changes nothing, and a move
   * {@link #MOVES} does not allow is a bug in the fleet, not a decision.
   */
  void moveTo(WorkerFleet.Phase next) {
    if (next == phase) {
      return;
    }
    if (!MOVES.get(phase).contains(next)) {
      throw new IllegalStateException("the job cannot go from " + phase + " to " + next);
    }
    LOG.debug("Phase {} -> {}", phase, next);
    phase = next;
  }

  /** Makes {@code next} the change under way; returns its number. */
  int begin(FleetChange next) {
    change = next;
    return ++begun;
  }

  /** The change under way; null: none. */
  FleetChange change() {
    return change;
  }

  /**
   * The change under way as it goes on, keeping its number: more of the same, what the leader has
   * shown or held of it, who stays or arrived.
   */
  void evolve(FleetChange next) {
    if (change == null || next == null) {
      throw new IllegalStateException("no change under way to go on with: " + change + " -> " + next);
    }
    change = next;
  }

  /** No change is under way any more: it landed, or ended with nothing (more) changed. */
  void end() {
    change = null;
  }

  /** Whether change number {@code number} is still the one under way. */
  boolean isCurrent(int number) {
    return begun == number && change != null;
  }

  /** The change under way, which what the ring just lost joins; with none, a new {@link Replacement}. */
  FleetChange changeOrReplacement() {
    if (change == null) {
      begin(new Replacement(Shown.since(latest)));
    }
    return change;
  }

  FleetChange.Departure departureOf(String containerId) {
    return change == null ? null : change.departureOf(containerId);
  }

  /** Started, not departing, in launch order. */
  List<String> runningWorkers() {
    return book.ids().stream().filter(book::hasStarted).filter(id -> departureOf(id) == null).toList();
  }

  boolean isDone() {
    return phase == WorkerFleet.Phase.SUCCEEDED || phase == WorkerFleet.Phase.FAILED;
  }

  boolean isRunning() {
    return phase == WorkerFleet.Phase.RUNNING;
  }

  int withinLimits(int workers) {
    return Math.min(maxWorkers, Math.max(minWorkers, workers));
  }

  /** Leavers still hold their containers: the fleet wants the target beside them. */
  boolean wantsMore() {
    return (phase == WorkerFleet.Phase.STARTING || isRunning()) && book.size() < target + departing();
  }

  private int departing() {
    return (int) book.ids().stream().filter(id -> departureOf(id) != null).count();
  }

  /** @return whether anything was requested */
  boolean requestMissing() {
    int missing = target + departing() - book.size() - book.outstanding();
    if (missing > 0 && wantsMore()) {
      book.requested(missing);
      LOG.info("Requesting {} worker containers of {}", missing, resource);
      driver.requestContainers(missing, resource);
      return true;
    }
    return false;
  }

  /**
   * After a change that did not happen: a worker that failed while it was leaving for it was not
   * replaced then, but the target counts it again.
   */
  void replaceMissing() {
    if (requestMissing() && isRunning()) {
      evolve(changeOrReplacement().lost());
    }
  }

  /**
   * The ring lost {@code containerId}, which nobody asked to leave (failed, removed by the leader,
   * preempted after its warning): the ring size reported so far counted it, so the change under
   * way, or a new {@link Replacement}, waits for a later report; for a ring member that failed
   * ({@code failedMember}), also for the leader to show its recovery. Whatever the target still
   * counts is requested.
   */
  void lost(String containerId, boolean failedMember) {
    if (isRunning()) {
      FleetChange now = changeOrReplacement();
      LeaderReport shown = now.shown().report();
      evolve(failedMember && shown != null && shown.workers() > 0
          ? now.lost(containerId, shown.workers()) : now.lost());
    }
    requestMissing();
  }

  /**
   * Every old worker has exited: the new ones start from the stop's checkpoint if its leader wrote
   * it, else from the job's newest earlier one.
   *
   * @return why the job cannot go on (no checkpoint at all: the model is gone); empty once relaunched
   */
  Optional<String> relaunchFromCheckpoint() {
    Restart r = (Restart) change;
    StopResume plan = r.plan();
    Optional<String> from;
    try {
      from = restartSource.checkpointFor(plan.directory());
    } catch (IOException | RuntimeException e) {
      return Optional.of("stop-resume to " + plan.size() + " workers: every worker has stopped, but the checkpoints"
          + " could not be listed to restart from: " + e);
    }
    if (from.isEmpty()) {
      return Optional.of("stop-resume to " + plan.size() + " workers: every worker has stopped, but no checkpoint was"
          + " written in " + plan.directory() + " and the job has no earlier one to restart from"
          + (failures.count() > 0 ? " (" + failures.summary() + ")" : ""));
    }
    if (from.get().equals(plan.directory())) {
      relaunch();
      return Optional.empty();
    }
    LOG.warn("The stop's checkpoint was not written in {}; restarting from the job's newest earlier checkpoint {}",
        plan.directory(), from.get());
    evolve(new Restart(plan.from(from.get()), r.stopping(), r.shown()));
    journal();
    relaunch();
    event("every worker stopped, but no checkpoint was written in " + plan.directory() + "; relaunching "
        + plan.size() + " from the job's newest earlier checkpoint " + from.get() + " (its later steps are trained again)");
    return Optional.empty();
  }

  /** Every worker stopped for the stop-resume under way: its new ones start from the checkpoint. */
  private void relaunch() {
    // Only the new ring's reports show the relaunch: at the same size the stopped ring's would too.
    evolve(change.with(Shown.NOTHING));
    StopResume plan = ((Restart) change).plan();
    LOG.info("Every worker stopped; relaunching {} from {}", plan.size(), plan.directory());
    event("every worker stopped with a checkpoint in " + plan.directory() + "; relaunching " + plan.size());
    requestMissing();
  }

  /**
   * Training finished and every worker that was surely in the ring has exited: the leader waited
   * for every member's last report before it exited, so a newcomer still running was never
   * switched in (the leader schedules no switch past the last step) and would only wait for a
   * switch that never comes. It is released; its completion is then ignored.
   */
  void releaseIfOnlyNewcomersRemain() {
    if (!book.onlyNewcomersLeft()) {
      return;
    }
    for (WorkerContainer c : book.containers()) {
      LOG.info("Releasing {}: training finished before it joined the ring", c.id());
      book.forget(c);
      driver.release(c.id());
    }
    if (change instanceof FleetChange.Migration) {
      end();
    }
  }

  /**
   * A container launched while the job runs is a newcomer until its change lands; one launched
   * for a stop-resume, or among the first workers of a resumed job, starts from the checkpoint.
   */
  void launch(WorkerContainer c) {
    List<Integer> indices = book.launch(c, isRunning(), resource.gpus());
    LOG.info("Launching worker in {} on {} with GPUs {}", c.id(), c.host(), indices);
    Map<String, String> env = change instanceof Restart r
        ? Map.of(WorkerEnv.RESTORE_FROM, r.plan().directory(), WorkerEnv.FIRST_RING_WORKERS,
            Integer.toString(r.plan().size()))
        : resumeFrom != null && phase == WorkerFleet.Phase.STARTING
            ? Map.of(WorkerEnv.RESTORE_FROM, resumeFrom) : Map.of();
    driver.launch(c, new WorkerLaunch(indices, env));
  }

  /** Ends the change under way once everything it started has landed, and journals what is left. */
  void settle() {
    if (change != null && isRunning() && change.landed(new FleetView(target, book.ids(), book.containersIn()))) {
      LOG.info("Change complete ({}): the ring reported is {} workers", change.what(), target);
      if (change instanceof Restart r && r.plan().pausedFor() != null) {
        event("resumed on " + target + " new workers from " + r.plan().directory() + " (paused: "
            + r.plan().pausedFor() + ")");
      }
      end();
      book.newcomersJoined();
    }
    journal();
  }

  /** Whether the job runs with no change under way and nothing requested: a new change may begin. */
  boolean isSteady() {
    return isRunning() && change == null && book.outstanding() == 0;
  }

  /** Keeps the intent for a later attempt when it changed; a failure costs only the failover. */
  void journal() {
    if (isDone()) {
      return;
    }
    FleetIntent now = new FleetIntent(target, restarts, change, failures.all(), growth.holdOffUntilMs(),
        growth.restatedRequest());
    if (now.equals(journaled)) {
      return;
    }
    try {
      journal.record(now);
      journaled = now;
    } catch (Exception e) {
      LOG.warn("Could not record the fleet's intent {}: a later AM attempt will not know the change"
          + " under way", now, e);
    }
  }
}
