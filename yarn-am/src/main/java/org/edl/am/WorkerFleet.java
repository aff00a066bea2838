package org.edl.am;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.edl.am.FleetChange.Migration;
import org.edl.am.FleetChange.Restart;
import org.edl.job.WorkerEnv;
import org.edl.job.ScaleMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision side of the AM: how many workers the job wants, the one change under way
 * ({@link FleetChange}), and what each container event means for the job. It never talks to YARN
 * or to the leader; it tells a {@link ContainerDriver} and a {@link WorkerRemoval} what to do.
 * Its containers are booked in a {@link FleetBook}; what it steers by is a {@link FleetState},
 * which the changes asked of it ({@link ElasticRequests}) share.
 *
 * <p>What a container's end means is {@link ExitRules}' verdict, which {@link FleetExits} carries out: an
 * event after the job ended changes nothing; a container the change under way expects to leave
 * that exits 0 has completed its departure and is gone from the fleet; any other worker that exits
 * 0 means training finished, so nothing is replaced any more, and when the last one has exited the
 * job succeeds if its {@link OutputCheck} finds the model and metrics written, and fails naming
 * what is missing otherwise. Any other end (a non-zero exit, a kill, a lost node, a preemption
 * neither warned of by the scheduler nor asked for by a scale-in, a container that cannot start)
 * is a worker failure, counted once per container; see {@link FleetSettings#allowedFailures}. Without
 * that, a failure fails the job, naming the container, its host, the exit status and YARN's
 * diagnostics, and the others are released. An allocation beyond the target is given back.
 *
 * <p>Elastic changes, one at a time and only while the job is RUNNING (not STARTING, not
 * finishing, not ended, not in the middle of another change):
 * <ul>
 *   <li>{@link #scaleOut}: the target grows by n (up to max-workers); n more containers are
 *   requested and launched with the same launch context; the newcomers join the running ring by
 *   themselves.</li>
 *   <li>{@link #scaleIn}: by count (the newest workers first) or by naming containers, never
 *   below min-workers. The target shrinks at once; the leader is asked to remove them at a
 *   future step, and each leaves the ring there and exits 3 ({@code EXIT_LEFT}). A leaver that exits non-zero is a
 *   worker failure like any other (within the limit it has left: nothing is replaced).
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
 * refuses leaves the job as it was. Neither a relaunch nor any other change checks the output:
 * only the end of training does.
 * A change is SCALING until every new container started, every leaver exited and the leader's
 * progress report shows the new ring size ({@link FleetChange#landed}). A user error is an
 * {@link FleetRefusal} naming the field and the value, and changes nothing.
 *
 * <p>A worker that exits {@link WorkerEnv#EXIT_LEFT} left the ring at a scheduled step while
 * training goes on. When the fleet did not ask for that (the leader removed a straggler), the
 * target shrinks by one, or, with {@link FleetSettings#replaceRemoved}, one new container is requested
 * and joins by ordinary stop-free scale-out. Either way the job is SCALING until the leader
 * reports the target. What the ring loses during a change (this, a failure, a warned preemption)
 * joins that change; with none under way it is a {@link FleetChange.Replacement}.
 *
 * <p>Not thread-safe by design: every call comes on the AM's main thread.
 */
public final class WorkerFleet implements ContainerEventHandler {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  /** Where the job is; the last two are final. */
  public enum Phase { STARTING, RUNNING, FINISHING, SUCCEEDED, FAILED }

  private final FleetState state;
  private final FleetBook book;
  private final ElasticRequests requests;
  private final OutputCheck output;
  private final PreemptionResponse preemption;
  private final CompletableFuture<JobOutcome> outcome = new CompletableFuture<>();
  private final FleetExits ends;
  /** Workers the leader declared failed whose node was asked after ({@link #onNodeUnreachable}). */
  private final Set<String> probed = new HashSet<>();
  private String diagnostics = "";

  /** A fleet that never changes size (min = max = target): scale calls are refused. */
  public WorkerFleet(ContainerDriver driver, OutputCheck output, WorkerResource resource, int targetWorkers) {
    this(driver, output, FleetSettings.of(resource, targetWorkers, targetWorkers, targetWorkers).build());
  }

  /** A fleet that changes size stop-free only (no stop-resume) and fails at its first worker failure. */
  public WorkerFleet(ContainerDriver driver, OutputCheck output, WorkerRemoval removal, WorkerResource resource,
      int targetWorkers, int minWorkers, int maxWorkers) {
    this(driver, output, FleetSettings.of(resource, targetWorkers, minWorkers, maxWorkers).removingBy(removal).build());
  }

  /** @param output asked, once training finished, what is wrong with the job's output */
  public WorkerFleet(ContainerDriver driver, OutputCheck output, FleetSettings settings) {
    this.state = new FleetState(driver, settings);
    this.book = state.book;
    this.requests = new ElasticRequests(state, settings.removal(), settings.stopper(), settings.checkpointRoot());
    state.growWith(new FleetGrowth(state, settings.growth(), requests));
    this.output = output;
    this.preemption = new PreemptionResponse(this, settings.resource().gpus());
    this.ends = new FleetExits(state, requests, output, preemption::wasWarned, settings, new FleetExits.JobEnd() {
      @Override
      public void fail(String why) {
        WorkerFleet.this.fail(why);
      }

      @Override
      public void finish(JobOutcome result) {
        WorkerFleet.this.finish(result);
      }
    });
  }

  /** How the job changes its size by itself: growing, and giving back when the scheduler warns. */
  ScaleMode automaticMode() {
    return state.growth().mode();
  }

  /** While a profile changes the job's size, the job asks for nothing by itself. */
  public void pauseGrowth(boolean pause) {
    state.growth().pause(pause);
  }

  /** Asks for the first workers. */
  public void start() {
    state.requestMissing();
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
   * its {@link FleetJournal} kept it ({@link FleetChange#takenOver}): the target it steered to
   * (missing workers are requested), the containers it had asked to leave (still expected to
   * leave), a migration the leader held (its missing newcomers are requested on the target host)
   * and a stop-resume (its relaunch starts from its checkpoint once every old worker has stopped,
   * even when none is left). The change lands when the leader reports it, like any other.
   */
  public void adopt(Map<WorkerContainer, List<Integer>> running, Optional<FleetIntent> previous) {
    FleetTakeover.takeOver(state, output, running, previous.orElse(null), this::finish);
  }

  /** Completes once, when the job has succeeded or failed. */
  public CompletableFuture<JobOutcome> outcome() {
    return outcome;
  }

  public FleetStatus status() {
    String last = state.change() instanceof Restart r && r.plan().pausedFor() != null
        ? "paused (" + r.plan().pausedFor() + "; resumes from its checkpoint once YARN grants its " + r.plan().size()
            + " containers again): " + state.lastEvent()
        : state.lastEvent();
    String running = state.failures.count() == 0 || last.isEmpty() ? last + state.failures.summary()
        : last + "; " + state.failures.summary();
    return new FleetStatus(state.phase(), isScaling(), state.target(), new ArrayList<>(book.ids()),
        state.isDone() ? diagnostics : running, book.placements());
  }

  /** Whether a change is on its way: the job reports SCALING meanwhile. */
  public boolean isScaling() {
    return state.change() != null && state.isRunning();
  }

  /**
   * Adds {@code count} workers to the running job.
   *
   * @throws FleetRefusal the job is not RUNNING, the mode is not EDL, or max-workers would be passed
   */
  public void scaleOut(int count, ScaleMode mode) throws FleetRefusal {
    requests.scaleOut(count, mode);
  }

  /**
   * {@link #scaleOut} as the job's user asks for it ({@code edl scale-out}): the new size is what
   * the job asks for from now on ({@link GrowthPolicy#requestIs}).
   */
  public void scaleOutByUser(int count, ScaleMode mode) throws FleetRefusal {
    int size = state.target() + count;
    requests.scaleOut(count, mode);
    state.growth().requestIs(size);
  }

  /**
   * {@link #scaleIn} as the job's user asks for it ({@code edl scale-in}): the new size is what
   * the job asks for from now on, so it does not grow back to its submitted size after the
   * hold-off ({@link GrowthPolicy#requestIs}).
   */
  public void scaleInByUser(int count, List<String> containerIds, ScaleMode mode) throws FleetRefusal {
    int before = state.target();
    requests.scaleIn(count, containerIds, mode);
    int leaving = containerIds == null || containerIds.isEmpty() ? count
        : new java.util.LinkedHashSet<>(containerIds).size();
    state.growth().requestIs(before - leaving);
  }

  /**
   * Removes workers from the running job at a future step: {@code count} of them (newest first)
   * or exactly {@code containerIds}, not both.
   *
   * @throws FleetRefusal the job is not RUNNING, the mode is not EDL, both or neither selector was
   *                  given, a named container is not a running worker of this job, or the job
   *                  would fall below min-workers
   */
  public void scaleIn(int count, List<String> containerIds, ScaleMode mode) throws FleetRefusal {
    requests.scaleIn(count, containerIds, mode);
  }

  /**
   * Stops every worker with a checkpoint, gives every container back and asks for as many again,
   * to resume from the checkpoint when they are granted: a stop-resume at the same size, for a
   * scheduler that wants all of the job's GPUs for a while (it hands them to others first).
   *
   * @throws FleetRefusal the job is not RUNNING or is in the middle of another change
   */
  public void pause(String why) throws FleetRefusal {
    requests.pause(why);
  }

  /**
   * Replaces the workers on {@code fromHost} by as many on {@code toHost}, in one switch: the
   * leader is asked first; the containers are requested when it has accepted.
   *
   * @throws FleetRefusal the job is not RUNNING, the hosts are equal or blank, no worker runs on
   *                  {@code fromHost}, every worker runs there, or {@code toHost} is not a
   *                  running node
   */
  public void migrate(String fromHost, String toHost) throws FleetRefusal {
    requests.migrate(fromHost, toHost);
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
    state.reported(report);
    // A worker the leader declared failed that YARN still holds as running may be on a node that
    // is gone: YARN says so only when the node expires (10 minutes by default), so ask the node.
    for (String id : report.failed()) {
      if (book.isLive(id) && probed.add(id)) {
        state.driver.probeNode(id);
      }
    }
    if (state.change() != null) {
      state.evolve(state.change().after(report));
    }
    if (state.isDone()) {
      return;
    }
    state.growth().onReport(report);
    state.settle();
    state.growth().ask();
  }

  /** See {@link FleetSettings#growth}: the extra joins by a stop-free scale-out of one, if the job can change now. */
  @Override
  public void onExtraContainerAllocated(WorkerContainer c) {
    state.growth().granted(c);
  }

  @Override
  public void onContainersAllocated(List<WorkerContainer> containers) {
    for (WorkerContainer c : containers) {
      if (state.change() instanceof Migration m && m.awaited() > 0 && c.host().equals(m.toHost()) && !state.isDone()) {
        state.evolve(m.admitted(c.id()));
        book.allocated();
        state.launch(c);
        continue;
      }
      book.allocated();
      if (state.wantsMore()) {
        state.launch(c);
      } else {
        LOG.info("Releasing {} on {}: not needed (phase {}, {} of {} workers)",
            c.id(), c.host(), state.phase(), book.size(), state.target());
        state.driver.release(c.id());
      }
    }
    state.journal(); // a migration's newcomers
  }

  @Override
  public void onContainerStarted(String containerId) {
    if (!book.started(containerId)) {
      return;
    }
    if (state.phase() == Phase.STARTING && book.startedCount() >= state.target()) {
      state.moveTo(Phase.RUNNING);
      LOG.info("All {} workers started", state.target());
    }
    state.settle();
  }

  @Override
  public void onContainerStartFailed(String containerId, Throwable cause) {
    ends.startFailed(containerId, cause);
  }

  @Override
  public void onContainerCompleted(String containerId, int exitStatus, String yarnDiagnostics) {
    ends.completed(containerId, exitStatus, yarnDiagnostics);
  }

  /** The leader declared it failed and its node does not answer: lost with its node, not waited for. */
  @Override
  public void onNodeUnreachable(String containerId, String why) {
    WorkerContainer c = book.get(containerId);
    if (c == null || state.isDone()) {
      return;
    }
    LOG.warn("Worker {} on {}: declared failed by the leader, and {}; counting it lost with its node", c.id(),
        c.host(), why);
    state.driver.avoidHost(c.host());
    ends.lostWithNode(containerId, "declared failed by the leader, and " + why);
  }

  /**
   * A leaver whose departure is its container's end (a {@code --torchrun} job's: torch's agents
   * have no graceful leave): given back to YARN now and counted as left, not as a failure.
   */
  public void leaverGivenBack(String containerId) {
    ends.givenBack(containerId);
  }

  /** See {@link PreemptionResponse}: the workers the resource manager wants leave by scale-in. */
  @Override
  public void onPreemptionRequested(PreemptionRequest request) {
    if (!state.isDone()) {
      preemption.respond(request);
    }
  }

  @Override
  public void onError(Throwable cause) {
    if (!state.isDone()) {
      fail("ApplicationMaster error: " + cause);
    }
  }

  int minWorkers() {
    return state.minWorkers;
  }

  /** Started, not departing, in launch order. */
  List<String> runningWorkerIds() {
    return state.runningWorkers();
  }

  /** Refuses unless the job is RUNNING with no change on its way (the rule every change follows). */
  void requireChangeable(String operation) throws FleetRefusal {
    requests.requireSteadyRunning(operation);
  }

  private void fail(String why) {
    LOG.error("Job failed: {}", why);
    for (String id : new ArrayList<>(book.ids())) {
      state.driver.release(id);
    }
    finish(JobOutcome.failure(why));
  }

  private void finish(JobOutcome result) {
    if (result.succeeded() && state.failures.count() > 0) {
      // A job that survived failures says so in its final report, not only while it ran.
      result = JobOutcome.success(result.diagnostics() + "; " + state.failures.summary());
    }
    state.moveTo(result.succeeded() ? Phase.SUCCEEDED : Phase.FAILED);
    diagnostics = result.diagnostics();
    outcome.complete(result);
  }

  static FleetRefusal error(String field, String value, String problem) {
    return new FleetRefusal(field, value, problem);
  }
}
