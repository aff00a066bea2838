package org.edl.am;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.edl.thrift.EdlError;
import org.edl.thrift.ScaleMode;
import org.edl.worker.runtime.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision side of the AM: how many workers the job wants and what each container event
 * means for the job. It never talks to YARN or to the leader; it tells a {@link ContainerDriver}
 * and a {@link WorkerRemoval} what to do.
 *
 * <p>Rules, in order: an event after the job ended changes nothing; a container the fleet
 * expects to exit (it was asked to leave) and that exits 0 has completed its departure and is
 * gone from the fleet; any other worker that exits 0 means training finished, so nothing is
 * replaced any more, and the job succeeds when the last one has exited 0; an allocation beyond
 * the target is given back. Any other end (a non-zero exit, a kill, a lost node, a preemption
 * neither warned of by the scheduler nor asked for by a scale-in, a container that cannot
 * start) is a worker failure, counted once per container; see
 * {@link #toleratingWorkerFailures}. What an end means is {@link ExitRules}' verdict, which this
 * class carries out. Without that, a failure fails the job, naming the container,
 * its host, the exit status and YARN's diagnostics, and the others are released.
 *
 * <p>Elastic changes, one at a time and only while the job is RUNNING (not STARTING, not
 * finishing, not ended, not in the middle of another change):
 * <ul>
 *   <li>{@link #scaleOut}: the target grows by n (up to max-workers); n more containers are
 *   requested and launched with the same launch context; the newcomers join the running ring by
 *   themselves.</li>
 *   <li>{@link #scaleIn}: by count (the newest workers first) or by naming containers, never
 *   below min-workers. The target shrinks at once; the leader is asked to remove them at a
 *   future step, and each leaves the ring there and exits 0. A leaver that exits non-zero fails
 *   the job like any worker: whether the ring still matches the leader's view is unknown then.
 *   A leave the leader refuses puts the container back into the target.</li>
 *   <li>{@link #migrate}: the workers on one host are replaced by as many on another in one
 *   switch. The leader is told first that they leave at the switch that admits the next n
 *   newcomers; only once it holds that are n containers requested, pinned to the target host.
 *   The ring never holds more than the target (the leader counts the leavers as gone when it
 *   admits the newcomers), so max-workers needs no headroom; YARN holds the n newcomers'
 *   containers beside the old ones while they prepare. A replacement the leader refuses ends the
 *   migration with nothing changed; one worker must stay (it sends the model).</li>
 * </ul>
 * With {@link ScaleMode#STOP_RESUME} (the baseline the benchmarks compare against) scale-out and
 * scale-in by count instead ask the leader to checkpoint and stop every worker; when the last
 * has exited 0 the new number of containers starts from the checkpoint
 * ({@link WorkerEnv#RESTORE_FROM}, {@link WorkerEnv#FIRST_RING_WORKERS}). A stop the leader
 * refuses leaves the job as it was.
 * A change is SCALING until every new container started, every leaver exited and the leader's
 * progress report shows the new ring size. A user error is an {@link EdlError} naming the field
 * and the value, and changes nothing.
 *
 * <p>A worker that exits {@link WorkerEnv#EXIT_LEFT} left the ring at a scheduled step while
 * training goes on. When the fleet did not ask for that (the leader removed a straggler), the
 * target shrinks by one, or, with {@link #replaceRemovedWorkers}, one new container is requested
 * and joins by ordinary stop-free scale-out. Either way the job is SCALING until the leader
 * reports the target.
 *
 * <p>Not thread-safe by design: every call comes on the AM's main thread.
 */
public final class WorkerFleet implements ContainerEventHandler {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  /** Where the job is; the last two are final. */
  public enum Phase { STARTING, RUNNING, FINISHING, SUCCEEDED, FAILED }

  /** Why a container is expected to exit 0 without that meaning "training finished". */
  enum Departure { SCALE_IN, MIGRATION, RESTART }

  private final ContainerDriver driver;
  private final WorkerRemoval removal;
  private final JobStopper stopper;
  /** Where stop-resume checkpoints go; null: the job cannot stop-resume. */
  private final String checkpointRoot;
  private final WorkerResource resource;
  private final int minWorkers;
  private final int maxWorkers;
  private final GpuSlots gpus = new GpuSlots();
  private WorkerFailures failures = new WorkerFailures(0);
  private FleetJournal journal = FleetJournal.NONE;
  /** The intent last given to {@link #journal}; null: none yet. */
  private FleetIntent journaled;
  private final Map<String, WorkerContainer> live = new LinkedHashMap<>();
  private final Set<String> started = new HashSet<>();
  /** Containers asked to leave (or otherwise expected to exit 0) and why. */
  private final Map<String, Departure> departing = new LinkedHashMap<>();
  /** Containers started by the current change that the leader has not yet reported in the ring. */
  private final Set<String> joining = new LinkedHashSet<>();
  private final CompletableFuture<JobOutcome> outcome = new CompletableFuture<>();
  private int target;
  private int outstanding;
  private int exitedOk;
  private Phase phase = Phase.STARTING;
  private String diagnostics = "";
  /** What the last change did, for the status while the job runs (a departure, a refused leave). */
  private String lastEvent = "";
  /** True from a change until it has fully landed. */
  private boolean changing;
  private HostMigration migration;
  private StopResume restart;
  private int restarts;
  /** The checkpoint the job's first workers start from ({@code edl submit --resume-from}); null: none. */
  private String resumeFrom;
  /** Ring size in the leader's latest progress report; -1 before the first. */
  private int reportedWorkers = -1;
  /** The leader's latest progress report; null before the first. */
  private LeaderReport latest;
  /**
   * Ring members that failed and whose recovery the leader has not shown yet, with the ring size
   * it reported before: until it reports a smaller ring or an event naming the failure, a report
   * of the old size still counts the dead worker, not its replacement.
   */
  private final Map<String, Integer> unrecovered = new HashMap<>();
  /** Whether a worker the leader removed on its own (a straggler) gets a new container. */
  private boolean replaceRemoved;
  private final PreemptionResponse preemption;

  /** A fleet that never changes size (min = max = target): scale calls are refused. */
  public WorkerFleet(ContainerDriver driver, WorkerResource resource, int targetWorkers) {
    this(driver, WorkerRemoval.UNSUPPORTED, resource, targetWorkers, targetWorkers, targetWorkers);
  }

  /** A fleet that changes size stop-free only (no stop-resume). */
  public WorkerFleet(ContainerDriver driver, WorkerRemoval removal, WorkerResource resource,
      int targetWorkers, int minWorkers, int maxWorkers) {
    this(driver, removal, JobStopper.UNSUPPORTED, null, resource, targetWorkers, minWorkers, maxWorkers);
  }

  /**
   * @param stopper        stops every worker with a checkpoint (stop-resume mode)
   * @param checkpointRoot directory under which each stop-resume change gets its own checkpoint
   */
  public WorkerFleet(ContainerDriver driver, WorkerRemoval removal, JobStopper stopper,
      String checkpointRoot, WorkerResource resource, int targetWorkers, int minWorkers, int maxWorkers) {
    if (targetWorkers < 1) {
      throw new IllegalArgumentException("targetWorkers must be at least 1: " + targetWorkers);
    }
    if (minWorkers < 1 || minWorkers > targetWorkers || maxWorkers < targetWorkers) {
      throw new IllegalArgumentException("need 1 <= min <= target <= max: min " + minWorkers
          + ", target " + targetWorkers + ", max " + maxWorkers);
    }
    this.driver = driver;
    this.removal = removal;
    this.stopper = stopper;
    this.checkpointRoot = checkpointRoot;
    this.resource = resource;
    this.target = targetWorkers;
    this.minWorkers = minWorkers;
    this.maxWorkers = maxWorkers;
    this.preemption = new PreemptionResponse(this, resource.gpus());
  }

  /** With {@code true}, each worker the leader removed on its own is replaced by a new container. */
  public WorkerFleet replaceRemovedWorkers(boolean replace) {
    this.replaceRemoved = replace;
    return this;
  }

  /**
   * The job survives {@code allowed} worker failures ({@code edl submit --max-worker-failures}):
   * each is logged, shown in the status, and (by {@link ExitRules}) replaced by one
   * new container with the same resources that joins by ordinary stop-free scale-out; the target
   * stays. Without this the first failure fails the job.
   */
  public WorkerFleet toleratingWorkerFailures(int allowed) {
    this.failures = new WorkerFailures(allowed);
    return this;
  }

  /** Keeps the fleet's intent there for a later AM attempt ({@link #adopt(Map, Optional)}). */
  public WorkerFleet journaling(FleetJournal to) {
    this.journal = to;
    return this;
  }

  /** Asks for the first workers. */
  public void start() {
    requestMissing();
  }

  /**
   * Starts a new AM attempt's fleet from the workers the previous attempts left running (YARN
   * kept them: keep-containers-across-application-attempts), each with the GPU indices it was
   * launched with. They are the running job: the fleet is RUNNING at once and restarts none of
   * them. The target is their number (a change the old attempt finished counts), but never
   * below min-workers: the missing ones are requested. With none left this is {@link #start}.
   */
  public void adopt(Map<WorkerContainer, List<Integer>> running) {
    adopt(running, Optional.empty());
  }

  /**
   * {@link #adopt(Map)} that also takes over the change the previous attempt had under way, as
   * its {@link FleetJournal} kept it: the target it steered to (missing workers are requested),
   * the containers it had asked to leave (still expected to leave), a migration the leader held
   * (its missing newcomers are requested on the target host) and a stop-resume (its relaunch
   * starts from its checkpoint once every old worker has stopped, even when none is left).
   */
  public void adopt(Map<WorkerContainer, List<Integer>> running, Optional<FleetIntent> previous) {
    FleetIntent intent = previous.orElse(null);
    if (running.isEmpty() && (intent == null || intent.restart() == null)) {
      start();
      return;
    }
    running.forEach((c, indices) -> {
      live.put(c.id(), c);
      started.add(c.id());
      gpus.take(c, indices);
    });
    phase = running.isEmpty() ? Phase.STARTING : Phase.RUNNING;
    lastEvent = "adopted " + live.size() + " running workers from a previous ApplicationMaster attempt";
    if (intent == null) {
      target = Math.min(maxWorkers, Math.max(minWorkers, live.size()));
    } else {
      resume(intent);
      lastEvent += "; taking over its change (target " + target + ", leaving " + departing.keySet()
          + (restart == null ? "" : ", stop-resume from " + restart.directory())
          + (migration == null ? "" : ", migration to " + migration.toHost) + ")";
    }
    LOG.info("{}: {}; target {}", lastEvent, live.keySet(), target);
    if (restart == null || !departing.containsValue(Departure.RESTART)) {
      // The missing ones join the running ring like scale-out newcomers: a change until it shows them.
      replaceMissing();
    }
    journal();
  }

  private void resume(FleetIntent intent) {
    target = Math.min(maxWorkers, Math.max(minWorkers, intent.target()));
    restarts = intent.restarts();
    restart = intent.restart();
    FleetIntent.MigrationIntent held = intent.migration();
    intent.departing().forEach((id, why) -> {
      // A migration the leader had not accepted yet is forgotten with the dead attempt.
      if (live.containsKey(id) && (why != Departure.MIGRATION || held != null)) {
        departing.put(id, why);
      }
    });
    if (held != null) {
      HostMigration m = new HostMigration(held.fromHost(), held.toHost(), held.leavers());
      m.held = true;
      held.newcomers().stream().filter(live::containsKey).forEach(m.newcomers::add);
      m.awaited = Math.max(0, m.leavers.size() - m.newcomers.size());
      migration = m;
      if (m.awaited > 0) {
        outstanding += m.awaited;
        driver.requestContainersOn(m.awaited, resource, m.toHost);
      }
    }
    changing = !departing.isEmpty() || restart != null || migration != null;
    reportedWorkers = -1;
  }

  /** What a later attempt needs to take over the change under way. */
  private FleetIntent intent() {
    HostMigration m = migration;
    return new FleetIntent(target, departing, restarts, restart, m == null || !m.held ? null
        : new FleetIntent.MigrationIntent(m.fromHost, m.toHost, m.leavers, List.copyOf(m.newcomers)));
  }

  /** Keeps the intent for a later attempt when it changed; a failure costs only the failover. */
  private void journal() {
    if (isDone()) {
      return;
    }
    FleetIntent now = intent();
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

  /** Completes once, when the job has succeeded or failed. */
  public CompletableFuture<JobOutcome> outcome() {
    return outcome;
  }

  public FleetStatus status() {
    String running = failures.count() == 0 || lastEvent.isEmpty() ? lastEvent + failures.summary()
        : lastEvent + "; " + failures.summary();
    return new FleetStatus(phase, isScaling(), target, new ArrayList<>(live.keySet()),
        isDone() ? diagnostics : running);
  }

  /** Whether a change is on its way: the job reports SCALING meanwhile. */
  public boolean isScaling() {
    return changing && phase == Phase.RUNNING;
  }

  /**
   * Adds {@code count} workers to the running job.
   *
   * @throws EdlError the job is not RUNNING, the mode is not EDL, or max-workers would be passed
   */
  public void scaleOut(int count, ScaleMode mode) throws EdlError {
    requireSteadyRunning("scale-out");
    if (count < 1) {
      throw error("count", Integer.toString(count), "scale-out needs a count of at least 1");
    }
    if (target + count > maxWorkers) {
      throw error("count", Integer.toString(count), "scale-out by " + count + " would make "
          + (target + count) + " workers, more than max-workers=" + maxWorkers);
    }
    if (mode == ScaleMode.STOP_RESUME) {
      restartAt(target + count);
      return;
    }
    target += count;
    changing = true;
    LOG.info("Scaling out by {} to {} workers", count, target);
    requestMissing();
    journal();
  }

  /**
   * Removes workers from the running job at a future step: {@code count} of them (newest first)
   * or exactly {@code containerIds}, not both.
   *
   * @throws EdlError the job is not RUNNING, the mode is not EDL, both or neither selector was
   *                  given, a named container is not a running worker of this job, or the job
   *                  would fall below min-workers
   */
  public void scaleIn(int count, List<String> containerIds, ScaleMode mode) throws EdlError {
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
    for (String id : distinct) {
      if (!started.contains(id) || departing.containsKey(id)) {
        throw error("containerIds", id, "not a running worker of this job (workers: "
            + String.join(", ", runningWorkers()) + ")");
      }
    }
    int after = target - n;
    if (after < minWorkers) {
      throw error(field, value, "scale-in by " + n + " would leave " + after
          + " workers, fewer than min-workers=" + minWorkers);
    }
    if (mode == ScaleMode.STOP_RESUME) {
      restartAt(after);
      return;
    }
    // In a steady job every target worker runs, so min-workers >= 1 leaves enough to pick from.
    List<String> leavers = named.isEmpty() ? newestRunning(count) : distinct;
    target = after;
    changing = true;
    for (String id : leavers) {
      departing.put(id, Departure.SCALE_IN);
    }
    LOG.info("Scaling in to {} workers: asking the leader to remove {}", target, leavers);
    journal();
    removal.leave(leavers, new RemovalAnswers());
  }

  /**
   * Replaces the workers on {@code fromHost} by as many on {@code toHost}, in one switch: the
   * leader is asked first; the containers are requested when it has accepted.
   *
   * @throws EdlError the job is not RUNNING, the hosts are equal or blank, no worker runs on
   *                  {@code fromHost}, every worker runs there, or {@code toHost} is not a
   *                  running node
   */
  public void migrate(String fromHost, String toHost) throws EdlError {
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
    List<String> leavers = new ArrayList<>();
    for (WorkerContainer c : live.values()) {
      if (c.host().equals(fromHost) && started.contains(c.id()) && !departing.containsKey(c.id())) {
        leavers.add(c.id());
      }
    }
    if (leavers.isEmpty()) {
      throw error("fromHost", fromHost, "no worker of this job runs there (workers on: "
          + String.join(", ", hostsOfRunningWorkers()) + ")");
    }
    if (leavers.size() >= runningWorkers().size()) {
      throw error("fromHost", fromHost, "every worker of this job runs there; one must stay to send"
          + " the model to the newcomers (scale out first, then migrate)");
    }
    if (!driver.isRunningNode(toHost)) {
      throw error("toHost", toHost, "not a running node of the cluster");
    }
    HostMigration m = new HostMigration(fromHost, toHost, leavers);
    migration = m;
    changing = true;
    for (String id : leavers) {
      departing.put(id, Departure.MIGRATION);
    }
    LOG.info("Migrating {} from {} to {}: asking the leader to replace them by {} newcomers",
        leavers, fromHost, toHost, leavers.size());
    removal.replace(leavers, leavers.size(), new ReplacementAnswer(m));
  }

  /** The leader's answer to a migration's replacement, on the main thread. */
  private final class ReplacementAnswer implements WorkerRemoval.ReplacementAnswer {
    private final HostMigration m;

    ReplacementAnswer(HostMigration m) {
      this.m = m;
    }

    @Override
    public void accepted(long atStep) {
      if (migration != m || isDone() || phase != Phase.RUNNING) {
        return;
      }
      // Only now: a newcomer started before the leader held the leave would join on its own.
      m.awaited = m.leavers.size();
      outstanding += m.awaited;
      LOG.info("The leader holds the leave of {}; requesting {} containers on {}", m.leavers,
          m.awaited, m.toHost);
      m.held = true;
      driver.requestContainersOn(m.awaited, resource, m.toHost);
      journal();
    }

    @Override
    public void refused(Exception cause) {
      if (migration != m || isDone()) {
        return;
      }
      m.leavers.forEach(departing::remove);
      migration = null;
      changing = false;
      lastEvent = "migration of " + m.leavers + " from " + m.fromHost + " to " + m.toHost
          + " did not start: the leader did not accept it (" + cause + ")";
      LOG.warn(lastEvent);
      replaceMissing();
      journal();
    }
  }

  /**
   * The leader's latest progress report says the running ring has {@code workers} members
   * (a change has reached the ring when this shows its size).
   */
  public void onProgressReport(int workers) {
    onProgressReport(LeaderReport.ofSize(workers));
  }

  /** As {@link #onProgressReport(int)}, with the members the leader names (they show its recoveries). */
  public void onProgressReport(LeaderReport report) {
    latest = report;
    unrecovered.entrySet().removeIf(e -> report.recoveredFrom(e.getKey(), e.getValue()));
    reportedWorkers = unrecovered.isEmpty() ? report.workers() : -1;
    if (isDone()) {
      return;
    }
    settle();
  }

  @Override
  public void onContainersAllocated(List<WorkerContainer> containers) {
    for (WorkerContainer c : containers) {
      HostMigration m = migration;
      if (m != null && m.awaited > 0 && c.host().equals(m.toHost) && !isDone()) {
        m.awaited--;
        outstanding = Math.max(0, outstanding - 1);
        m.newcomers.add(c.id());
        launch(c);
        continue;
      }
      outstanding = Math.max(0, outstanding - 1);
      if (wantsMore()) {
        launch(c);
      } else {
        LOG.info("Releasing {} on {}: not needed (phase {}, {} of {} workers)",
            c.id(), c.host(), phase, live.size(), target);
        driver.release(c.id());
      }
    }
    journal(); // a migration's newcomers
  }

  @Override
  public void onContainerStarted(String containerId) {
    if (!live.containsKey(containerId)) {
      return;
    }
    started.add(containerId);
    if (phase == Phase.STARTING && started.size() >= target) {
      phase = Phase.RUNNING;
      LOG.info("All {} workers started", target);
    }
    settle();
  }

  @Override
  public void onContainerStartFailed(String containerId, Throwable cause) {
    ContainerExit exit = ContainerExit.notStarted(cause);
    ContainerFacts facts = factsOf(containerId);
    ExitVerdict verdict = ExitRules.judge(exit, facts, fleetFactsBesides(containerId));
    if (verdict.kind() == ExitVerdict.Kind.IGNORE) {
      return;
    }
    WorkerContainer c = live.get(containerId);
    // Given back first: its completion then finds it gone and changes nothing.
    forget(c);
    driver.release(c.id());
    carryOut(c, exit, facts, verdict);
  }

  @Override
  public void onContainerCompleted(String containerId, int exitStatus, String yarnDiagnostics) {
    ContainerExit exit = ContainerExit.exited(exitStatus, yarnDiagnostics);
    ContainerFacts facts = factsOf(containerId);
    ExitVerdict verdict = ExitRules.judge(exit, facts, fleetFactsBesides(containerId));
    WorkerContainer c = live.get(containerId);
    if (c != null) {
      forget(c);
    }
    carryOut(c, exit, facts, verdict);
  }

  private void forget(WorkerContainer c) {
    live.remove(c.id());
    started.remove(c.id());
    joining.remove(c.id());
    departing.remove(c.id());
    gpus.free(c);
  }

  private ContainerFacts factsOf(String id) {
    if (!live.containsKey(id)) {
      return ContainerFacts.unknown(id);
    }
    return new ContainerFacts(id, true, departing.get(id), joining.contains(id),
        migration != null && migration.newcomers.contains(id), preemption.wasWarned(id), failures.counted(id));
  }

  /** What the fleet knows of itself, leaving out the container {@code id} that ended. */
  private FleetFacts fleetFactsBesides(String id) {
    Set<String> inRing = new HashSet<>();
    Set<String> newcomers = new HashSet<>();
    for (String other : live.keySet()) {
      if (!other.equals(id) && started.contains(other)) {
        (joining.contains(other) ? newcomers : inRing).add(other);
      }
    }
    return new FleetFacts(phase, failures.count(), failures.allowed(), replaceRemoved, restart != null,
        inRing, newcomers, Optional.ofNullable(latest));
  }

  /** Does what {@code verdict} says; {@code c} is already gone from the fleet. */
  private void carryOut(WorkerContainer c, ContainerExit exit, ContainerFacts facts, ExitVerdict verdict) {
    if (verdict.kind() == ExitVerdict.Kind.IGNORE) {
      return;
    }
    WorkerFailures.Failure failure = WorkerFailures.Failure.of(c, exit);
    if (verdict.failure()) {
      failures.record(failure);
    }
    String what = "worker container " + failure.describe()
        + (facts.departure() == null ? "" : " (leaving the job: " + facts.departure() + ")");
    String next = verdict.reason();
    switch (verdict.kind()) {
      case FAILURE_FATAL -> {
        fail(what + " failed: " + clean(exit.diagnostics()) + " (" + verdict.reason()
            + (failures.count() > 1 ? "; " + failures.summary() : "") + ")");
        return;
      }
      case AFTER_TRAINING -> LOG.info("{} ended: {}", what, verdict.reason());
      case FINISHED_TRAINING -> {
        exitedOk++;
        phase = Phase.FINISHING;
        LOG.info("Worker {} on {} finished ({} done, {} still running)", c.id(), c.host(), exitedOk, live.size());
      }
      case LEFT, STOPPED_FOR_RESTART -> {
        if (!verdict.failure()) {
          lastEvent = "worker container " + c.id() + " on " + c.host() + " left the job ("
              + facts.departure() + ", exit status " + exit.status() + ")";
          LOG.info("{}; {} containers remain", lastEvent, live.size());
        }
      }
      case REMOVED_SHRINK, REMOVED_REPLACE -> removedByLeader(c, verdict.kind() == ExitVerdict.Kind.REMOVED_REPLACE);
      case PREEMPTED_SHRINK -> {
        target = Math.max(minWorkers, target - 1);
        changing = true;
        reportedWorkers = -1;
        lastEvent = "worker container " + c.id() + " on " + c.host() + " was preempted by the scheduler"
            + " after its warning; the job goes on with " + target + " workers";
        LOG.warn("{}", lastEvent);
        requestMissing();
      }
      case FAILURE_REPLACE_ON_HOST -> {
        HostMigration m = migration;
        m.newcomers.remove(c.id());
        next += " " + m.toHost;
        m.awaited++;
        outstanding++;
        driver.requestContainersOn(1, resource, m.toHost);
      }
      case FAILURE_REPLACE -> {
        if (phase == Phase.RUNNING) {
          changing = true;
          if (!facts.newcomer() && reportedWorkers > 0) {
            unrecovered.put(c.id(), reportedWorkers);
          }
          // The ring size reported so far counted the failed worker: only a later report shows the change.
          reportedWorkers = -1;
        }
        requestMissing();
      }
      case IGNORE -> { }
    }
    if (verdict.failure()) {
      lastEvent = what + " failed; the job goes on, " + next + " (failure " + failures.count()
          + " of " + failures.allowed() + " allowed)";
      LOG.warn("{}; YARN says: {}", lastEvent, clean(exit.diagnostics()));
    }
    if (phase == Phase.FINISHING) {
      releaseIfOnlyNewcomersRemain();
      if (live.isEmpty()) {
        finish(JobOutcome.success("all " + exitedOk + " workers finished training"));
        return;
      }
    } else if (verdict.kind() == ExitVerdict.Kind.STOPPED_FOR_RESTART && live.isEmpty()) {
      relaunch();
    }
    settle();
  }

  /**
   * A worker left at a scheduled step that the fleet did not ask for: the leader removed it (a
   * straggler). Training goes on, so this is no "training finished".
   */
  private void removedByLeader(WorkerContainer c, boolean replace) {
    if (replace) {
      lastEvent = "worker container " + c.id() + " on " + c.host() + " was removed by the leader"
          + " (exit status " + WorkerEnv.EXIT_LEFT + "); requesting a replacement";
    } else {
      target = Math.max(minWorkers, target - 1);
      lastEvent = "worker container " + c.id() + " on " + c.host() + " was removed by the leader"
          + " (exit status " + WorkerEnv.EXIT_LEFT + "); the job goes on with " + target + " workers";
    }
    LOG.warn("{}", lastEvent);
    if (phase == Phase.RUNNING) {
      changing = true;
      // The ring size reported so far counted the leaver: only a later report shows the change.
      reportedWorkers = -1;
    }
    requestMissing();
  }

  /** See {@link PreemptionResponse}: the workers the resource manager wants leave by scale-in. */
  @Override
  public void onPreemptionRequested(PreemptionRequest request) {
    if (!isDone()) {
      preemption.respond(request);
    }
  }

  @Override
  public void onError(Throwable cause) {
    if (!isDone()) {
      fail("ApplicationMaster error: " + cause);
    }
  }

  /** The leader's answers to a removal, on the main thread. */
  private final class RemovalAnswers implements WorkerRemoval.Answers {
    @Override
    public void accepted(String containerId, long atStep) {
      LOG.info("{} leaves {}", containerId, atStep < 0 ? "with the pending change" : "at step " + atStep);
    }

    @Override
    public void refused(String containerId, Exception cause) {
      Departure d = departing.remove(containerId);
      if (d == null || isDone() || !live.containsKey(containerId)) {
        return;
      }
      // The worker stays in the ring, so it counts again; the operator sees why in the log.
      target++;
      lastEvent = "worker container " + containerId + " stays in the job: the leader did not accept"
          + " its leave (" + cause + ")";
      LOG.warn("{}; target back to {}", lastEvent, target);
      settle();
    }
  }

  /**
   * Stop-resume: the leader is asked to checkpoint and stop every worker; each one's exit 0 is
   * then expected, and the last one's starts the relaunch at {@code size}.
   */
  private void restartAt(int size) throws EdlError {
    if (checkpointRoot == null) {
      throw error("mode", ScaleMode.STOP_RESUME.name(), "this job has no checkpoint directory");
    }
    String directory = checkpointRoot + "/restart-" + (restarts + 1);
    restarts++;
    restart = new StopResume(size, target, directory);
    target = size;
    changing = true;
    for (String id : live.keySet()) {
      departing.put(id, Departure.RESTART);
    }
    LOG.info("Stop-resume to {} workers: asking the leader to stop every worker with a checkpoint in {}",
        size, directory);
    journal();
    stopper.stopForRestart(directory, new StopAnswer());
  }

  private void relaunch() {
    LOG.info("Every worker stopped; relaunching {} from {}", restart.size(), restart.directory());
    lastEvent = "every worker stopped with a checkpoint in " + restart.directory() + "; relaunching "
        + restart.size();
    requestMissing();
  }

  /** The leader's answer to a stop-resume, on the main thread. */
  private final class StopAnswer implements JobStopper.Answer {
    @Override
    public void accepted(long atStep) {
      if (restart != null) {
        lastEvent = "every worker stops after step " + atStep + " (checkpoint in " + restart.directory() + ")";
      }
    }

    @Override
    public void refused(Exception cause) {
      StopResume r = restart;
      if (r == null || isDone()) {
        return;
      }
      departing.values().removeIf(d -> d == Departure.RESTART);
      target = r.previousTarget();
      restart = null;
      changing = false;
      lastEvent = "stop-resume to " + r.size() + " workers did not happen: the leader did not accept"
          + " the stop (" + cause + ")";
      LOG.warn(lastEvent);
      replaceMissing();
      journal();
    }
  }

  /**
   * Starts the job's first workers from {@code checkpoint}: each container launched before every
   * first worker started gets {@link WorkerEnv#RESTORE_FROM}; later ones join the running job and
   * are handed the model by the ring, as usual.
   */
  public void startFrom(String checkpoint) {
    resumeFrom = checkpoint == null || checkpoint.isBlank() ? null : checkpoint;
  }

  private void launch(WorkerContainer c) {
    live.put(c.id(), c);
    if (phase == Phase.RUNNING) {
      joining.add(c.id());
    }
    List<Integer> indices = gpus.assign(c, resource.gpus());
    LOG.info("Launching worker in {} on {} with GPUs {}", c.id(), c.host(), indices);
    Map<String, String> env = restart != null
        ? Map.of(WorkerEnv.RESTORE_FROM, restart.directory(), WorkerEnv.FIRST_RING_WORKERS,
            Integer.toString(restart.size()))
        : resumeFrom != null && phase == Phase.STARTING ? Map.of(WorkerEnv.RESTORE_FROM, resumeFrom) : Map.of();
    driver.launch(c, new WorkerLaunch(indices, env));
  }

  /**
   * Training finished and every worker that was surely in the ring has exited: the leader waited
   * for every member's last report before it exited, so a newcomer still running was never
   * switched in (the leader schedules no switch past the last step) and would only wait for a
   * switch that never comes. It is released; its completion is then ignored.
   */
  private void releaseIfOnlyNewcomersRemain() {
    if (live.isEmpty() || !joining.containsAll(live.keySet())) {
      return;
    }
    for (String id : new ArrayList<>(live.keySet())) {
      LOG.info("Releasing {}: training finished before it joined the ring", id);
      gpus.free(live.remove(id));
      started.remove(id);
      departing.remove(id);
      driver.release(id);
    }
    joining.clear();
    migration = null;
  }

  /** Ends the current change once everything it started has landed. */
  private void settle() {
    settleChange();
    journal();
  }

  private void settleChange() {
    if (!changing || phase != Phase.RUNNING) {
      return;
    }
    boolean containersIn = outstanding == 0 && started.containsAll(live.keySet());
    boolean leaversGone = departing.isEmpty();
    boolean migrated = migration == null || (migration.awaited == 0
        && migration.leavers.stream().noneMatch(live::containsKey));
    if (containersIn && leaversGone && migrated && reportedWorkers == target) {
      changing = false;
      joining.clear();
      migration = null;
      restart = null;
      LOG.info("Change complete: the leader reports {} workers", target);
    }
  }

  private List<String> newestRunning(int count) {
    List<String> running = runningWorkers();
    List<String> newest = new ArrayList<>();
    for (int i = running.size() - 1; i >= 0 && newest.size() < count; i--) {
      newest.add(running.get(i));
    }
    return newest;
  }

  int minWorkers() {
    return minWorkers;
  }

  /** Started, not departing, in launch order. */
  List<String> runningWorkerIds() {
    return runningWorkers();
  }

  private List<String> runningWorkers() {
    List<String> ids = new ArrayList<>();
    for (String id : live.keySet()) {
      if (started.contains(id) && !departing.containsKey(id)) {
        ids.add(id);
      }
    }
    return ids;
  }

  private Collection<String> hostsOfRunningWorkers() {
    Set<String> hosts = new LinkedHashSet<>();
    for (String id : runningWorkers()) {
      hosts.add(live.get(id).host());
    }
    return hosts;
  }

  /** Refuses unless the job is RUNNING with no change on its way (the rule every change follows). */
  void requireChangeable(String operation) throws EdlError {
    requireSteadyRunning(operation);
  }

  private void requireSteadyRunning(String operation) throws EdlError {
    if (phase != Phase.RUNNING) {
      throw error("state", phase.name(), operation + " needs a RUNNING job; this one is " + phase);
    }
    if (changing) {
      throw error("state", "SCALING", operation + " must wait: the job is SCALING (target "
          + target + " workers, the leader reports " + reportedWorkers + ")");
    }
  }

  private boolean wantsMore() {
    int capacity = target + departing.size();
    return (phase == Phase.STARTING || phase == Phase.RUNNING) && live.size() < capacity;
  }

  private void requestMissing() {
    int missing = target + departing.size() - live.size() - outstanding;
    if (missing > 0 && wantsMore()) {
      outstanding += missing;
      LOG.info("Requesting {} worker containers of {}", missing, resource);
      driver.requestContainers(missing, resource);
    }
  }

  /**
   * After a change that did not happen: a worker that failed while it was leaving for it was not
   * replaced then, but the target counts it again.
   */
  private void replaceMissing() {
    int before = outstanding;
    requestMissing();
    if (outstanding > before && phase == Phase.RUNNING) {
      changing = true;
      reportedWorkers = -1;
    }
  }

  private boolean isDone() {
    return phase == Phase.SUCCEEDED || phase == Phase.FAILED;
  }

  private void fail(String why) {
    LOG.error("Job failed: {}", why);
    for (String id : new ArrayList<>(live.keySet())) {
      driver.release(id);
    }
    finish(JobOutcome.failure(why));
  }

  private void finish(JobOutcome result) {
    if (result.succeeded() && failures.count() > 0) {
      // A job that survived failures says so in its final report, not only while it ran.
      result = JobOutcome.success(result.diagnostics() + "; " + failures.summary());
    }
    phase = result.succeeded() ? Phase.SUCCEEDED : Phase.FAILED;
    diagnostics = result.diagnostics();
    outcome.complete(result);
  }

  static EdlError error(String field, String value, String problem) {
    EdlError e = new EdlError(field + "=" + value + ": " + problem);
    e.setField(field);
    e.setValue(value);
    return e;
  }

  private static String clean(String yarnDiagnostics) {
    return yarnDiagnostics == null || yarnDiagnostics.isBlank() ? "(no diagnostics from YARN)" : yarnDiagnostics.strip();
  }
}
