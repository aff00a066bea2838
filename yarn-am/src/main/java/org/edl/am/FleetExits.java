package org.edl.am;

import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.edl.am.FleetChange.Migration;
import org.edl.am.FleetChange.Restart;
import org.edl.am.WorkerFleet.Phase;
import org.edl.job.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the end of each of the fleet's containers means for the job, carried out: {@link ExitRules}
 * judges the exit from what the fleet knows of the container and of itself, and this class does
 * what the verdict says (a departure completed, training finished, a failure counted and the
 * worker replaced or the job failed, a straggler's removal, a warned preemption). When the last
 * worker has exited after training, the job succeeds only if its {@link OutputCheck} finds the
 * model. The job's end itself (releasing what is left, the outcome) is the fleet's
 * ({@link JobEnd}). Not thread-safe: the AM's main thread, like {@link WorkerFleet}.
 */
final class FleetExits {
  // Logged as the fleet, as before this class was split off: operators grep for WorkerFleet.
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  /** How the fleet ends the job. */
  interface JobEnd {
    /** Fails the job, releasing every container left. */
    void fail(String why);

    void finish(JobOutcome result);
  }

  private final FleetState state;
  private final FleetBook book;
  private final ElasticRequests requests;
  private final OutputCheck output;
  private final Predicate<String> warned;
  private final JobEnd end;
  /** Whether a worker the leader removed on its own (a straggler) gets a new container. */
  private final boolean replaceRemoved;
  /** Told of each container's end at once (see {@link FleetSettings#exits}). */
  private final Consumer<String> exits;
  private int exitedOk;

  /** @param warned whether the scheduler warned of a container's preemption before it ended */
  FleetExits(FleetState state, ElasticRequests requests, OutputCheck output, Predicate<String> warned,
      FleetSettings settings, JobEnd end) {
    this.state = state;
    this.book = state.book;
    this.requests = requests;
    this.output = output;
    this.warned = warned;
    this.replaceRemoved = settings.replaceRemoved();
    this.exits = settings.exits();
    this.end = end;
  }

  /** A container that could not be started: given back, then judged like an exit. */
  void startFailed(String containerId, Throwable cause) {
    endNow(containerId, ContainerExit.notStarted(cause));
  }

  /**
   * A container the leader declared failed on a node whose node manager does not answer: judged
   * now as YARN reports such a container once the node expires (ABORTED), minutes later by
   * default, and given back, so that YARN's own report of it then finds it gone and counts
   * nothing twice.
   */
  /** See {@link WorkerFleet#leaverGivenBack}: judged as a leaver that exited {@link WorkerEnv#EXIT_LEFT}. */
  void givenBack(String containerId) {
    endNow(containerId, ContainerExit.exited(WorkerEnv.EXIT_LEFT, "given back to YARN as it left"));
  }

  void lostWithNode(String containerId, String why) {
    if (book.isLive(containerId)) {
      endNow(containerId, ContainerExit.exited(ContainerExitStatus.ABORTED, why));
    }
  }

  /** Ends {@code containerId} before YARN reports it: given back, then judged like an exit. */
  private void endNow(String containerId, ContainerExit exit) {
    ContainerFacts facts = factsOf(containerId);
    ExitVerdict verdict = ExitRules.judge(exit, facts, fleetFactsBesides(containerId));
    if (verdict.kind() == ExitVerdict.Kind.IGNORE) {
      return;
    }
    WorkerContainer c = book.get(containerId);
    // Given back first: its completion then finds it gone and changes nothing.
    book.forget(c);
    state.driver.release(c.id());
    exits.accept(containerId);
    carryOut(c, exit, facts, verdict);
  }

  /** A container that exited (or that YARN reports gone). */
  void completed(String containerId, int exitStatus, String yarnDiagnostics) {
    ContainerExit exit = ContainerExit.exited(exitStatus, yarnDiagnostics);
    ContainerFacts facts = factsOf(containerId);
    ExitVerdict verdict = ExitRules.judge(exit, facts, fleetFactsBesides(containerId));
    WorkerContainer c = book.get(containerId);
    if (c != null) {
      book.forget(c);
      exits.accept(containerId);
    }
    carryOut(c, exit, facts, verdict);
  }

  private ContainerFacts factsOf(String id) {
    if (!book.isLive(id)) {
      return ContainerFacts.unknown(id);
    }
    return new ContainerFacts(id, true, state.departureOf(id), book.isNewcomer(id),
        state.change() instanceof Migration m && m.newcomers().contains(id), warned.test(id),
        state.failures.counted(id));
  }

  /** What the fleet knows of itself, leaving out the container {@code id} that ended. */
  private FleetFacts fleetFactsBesides(String id) {
    Set<String> inRing = new HashSet<>();
    Set<String> joining = new HashSet<>();
    for (String other : book.ids()) {
      if (!other.equals(id) && book.hasStarted(other)) {
        (book.isNewcomer(other) ? joining : inRing).add(other);
      }
    }
    return new FleetFacts(state.phase(), state.failures.count(), state.failures.allowed(), replaceRemoved,
        state.change() instanceof Restart, inRing, joining, Optional.ofNullable(state.latest()));
  }

  /** Does what {@code verdict} says; {@code c} is already gone from the book. */
  private void carryOut(WorkerContainer c, ContainerExit exit, ContainerFacts facts, ExitVerdict verdict) {
    if (verdict.kind() == ExitVerdict.Kind.IGNORE) {
      return;
    }
    WorkerFailures.Failure failure = WorkerFailures.Failure.of(c, exit);
    if (verdict.failure()) {
      state.failures.record(failure);
    }
    String what = "worker container " + failure.describe()
        + (facts.departure() == null ? "" : " (leaving the job: " + facts.departure() + ")");
    String next = verdict.reason();
    switch (verdict.kind()) {
      case FAILURE_FATAL -> {
        end.fail(what + " failed: " + clean(exit.diagnostics()) + " (" + verdict.reason()
            + (state.failures.count() > 1 ? "; " + state.failures.summary() : "") + ")");
        return;
      }
      case AFTER_TRAINING -> LOG.info("{} ended: {}", what, verdict.reason());
      case FINISHED_TRAINING -> {
        exitedOk++;
        state.moveTo(Phase.FINISHING);
        LOG.info("Worker {} on {} finished ({} done, {} still running)", c.id(), c.host(), exitedOk, book.size());
      }
      case LEFT, STOPPED_FOR_RESTART -> {
        if (!verdict.failure()) {
          state.event("worker container " + c.id() + " on " + c.host() + " left the job ("
              + facts.departure() + ", exit status " + exit.status() + ")");
          LOG.info("{}; {} containers remain", state.lastEvent(), book.size());
        }
      }
      case REMOVED_SHRINK, REMOVED_REPLACE -> removedByLeader(c, verdict.kind() == ExitVerdict.Kind.REMOVED_REPLACE);
      case PREEMPTED_SHRINK -> {
        state.retarget(Math.max(state.minWorkers, state.target() - 1));
        state.growth().gaveBack();
        state.event("worker container " + c.id() + " on " + c.host() + " was preempted by the scheduler"
            + " after its warning; the job goes on with " + state.target() + " workers");
        LOG.warn("{}", state.lastEvent());
        state.lost(c.id(), false);
      }
      case PREEMPTED_RELAUNCH -> {
        Optional<String> cannot = requests.relaunchWithoutRing("worker container " + c.id() + " on " + c.host()
            + ", the ring's last, was preempted by the scheduler after its warning");
        if (cannot.isPresent()) {
          end.fail(cannot.get());
          return;
        }
      }
      case FAILURE_REPLACE_ON_HOST -> {
        Migration m = (Migration) state.change();
        state.evolve(m.newcomerLost(c.id()));
        next += " " + m.toHost();
        book.requested(1);
        state.driver.requestContainersOn(1, state.resource, m.toHost());
      }
      case FAILURE_REPLACE -> state.lost(c.id(), !facts.newcomer());
      case IGNORE -> { }
    }
    if (verdict.failure()) {
      state.event(what + " failed; the job goes on, " + next + " (failure " + state.failures.count()
          + " of " + state.failures.allowed() + " allowed)");
      LOG.warn("{}; YARN says: {}", state.lastEvent(), clean(exit.diagnostics()));
    }
    if (state.phase() == Phase.FINISHING) {
      state.releaseIfOnlyNewcomersRemain();
      if (book.isEmpty()) {
        finishTraining();
        return;
      }
    } else if (verdict.kind() == ExitVerdict.Kind.STOPPED_FOR_RESTART && book.isEmpty()) {
      Optional<String> cannot = state.relaunchFromCheckpoint();
      if (cannot.isPresent()) {
        end.fail(cannot.get());
        return;
      }
    }
    state.settle();
  }

  /** A worker left at a scheduled step that the fleet did not ask for: the leader removed it (a straggler). */
  private void removedByLeader(WorkerContainer c, boolean replace) {
    String removed = "worker container " + c.id() + " on " + c.host() + " was removed by the leader"
        + " (exit status " + WorkerEnv.EXIT_LEFT + ")";
    if (replace) {
      state.event(removed + "; requesting a replacement");
    } else {
      state.retarget(Math.max(state.minWorkers, state.target() - 1));
      state.event(removed + "; the job goes on with " + state.target() + " workers");
      // Not asked for again at once: it would likely land on the same slow GPU.
      state.growth().gaveBack();
    }
    LOG.warn("{}", state.lastEvent());
    state.lost(c.id(), false);
  }

  /** Every worker has exited after training finished: the job succeeds only if its output is there. */
  private void finishTraining() {
    Optional<String> problem;
    try {
      problem = output.problem();
    } catch (RuntimeException e) {
      problem = Optional.of("checking it failed: " + e);
    }
    if (problem.isPresent()) {
      end.fail("training finished (all " + exitedOk + " workers exited 0) but the output does not verify: "
          + problem.get() + (state.failures.count() > 0 ? "; " + state.failures.summary() : ""));
    } else {
      end.finish(JobOutcome.success("all " + exitedOk + " workers finished training"));
    }
  }

  private static String clean(String yarnDiagnostics) {
    return yarnDiagnostics == null || yarnDiagnostics.isBlank() ? "(no diagnostics from YARN)" : yarnDiagnostics.strip();
  }
}
