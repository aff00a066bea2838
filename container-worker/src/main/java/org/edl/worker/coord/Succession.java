package org.edl.worker.coord;

import java.util.Optional;
import java.util.Set;
import org.edl.job.JobSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a new leader starts: always from the newest record in ZooKeeper (which only the newest
 * leadership can write) and never from anything a member remembers of an earlier leader.
 *
 * <ul>
 *   <li>The record names the output: the job is over; the successor only tells members so.</li>
 *   <li>The record says its leader departed at a switch: every member completed the recorded step
 *   with the same model, so the job goes on from it, with the change it held. A newcomer that
 *   switch admitted may not have asked for its order yet: it gets the same order (its step and
 *   broadcaster) from the successor.</li>
 *   <li>Otherwise the leader stopped leading without a word. If its ZooKeeper session still lives
 *   (it was deposed by a connection blip) every member recovers to one position and it trains on
 *   as a member; if not it is declared failed. Either way the recovery starts from the newest
 *   checkpoint the record names (consistent) or the survivors' own positions (approximate).</li>
 * </ul>
 */
public final class Succession {
  private static final Logger LOG = LoggerFactory.getLogger(Succession.class);

  private Succession() {}

  /** A job restarted from a checkpoint (stop-resume, --resume-from): where its first ring starts, and its size. */
  public record Restart(Optional<CheckpointRef> from, int firstRingSize) {}

  /**
   * The state a leadership of epoch {@code leaderEpoch} starts in: a fresh or restarted job when
   * nothing was recorded (or only the end of an incarnation that stopped for this restart), or
   * the record's job. Empty, with the coordinator fenced and why, when this worker must not lead:
   * it is not a member of the recorded ring, or the job stopped for a restart it is no part of.
   */
  public static Optional<CoordinatorState> begin(JobSpec spec, Ticker ticker, CoordinatorSettings settings,
      String leaderId, long leaderEpoch, Lifecycle lifecycle, Optional<JobRecord> record, Restart restart,
      Set<String> present) {
    Optional<JobRecord> r = record;
    if (r.isPresent() && r.get().stoppedInto() != null) {
      if (restart.from().isEmpty()) {
        lifecycle.fence("the job stopped for a restart into " + r.get().stoppedInto()
            + "; only a worker of the restarted job leads now");
        return Optional.empty();
      }
      r = Optional.empty();
    }
    CoordinatorState s;
    if (r.isEmpty()) {
      s = CoordinatorState.forming(spec, ticker, settings, leaderId, leaderEpoch, lifecycle,
          restart.from().map(CheckpointRef::at));
      if (restart.firstRingSize() > 0) {
        s.firstRingSize(restart.firstRingSize());
      }
      restart.from().ifPresent(s::checkpointWritten);
      LOG.info("Coordinator active with leader epoch {}: waiting for {} workers to register{}", leaderEpoch,
          restart.firstRingSize() > 0 ? restart.firstRingSize() : spec.scale().workers(),
          restart.from().map(c -> "; the first ring starts at step " + c.at().step()).orElse(""));
    } else {
      JobRecord j = r.get();
      if (j.output() == null && !mayLead(j, leaderId)) {
        lifecycle.fence("elected, but not a member of the recorded ring " + j.ring().describe()
            + (j.fenced().contains(leaderId) ? " (declared failed)" : ""));
        return Optional.empty();
      }
      s = takeOver(spec, ticker, settings, leaderId, leaderEpoch, lifecycle, j, present);
      LOG.info("Coordinator active with leader epoch {}, taking over from {} (epoch {}) in phase {}", leaderEpoch,
          j.leaderId(), j.leaderEpoch(), lifecycle.phase());
    }
    if (present != null) {
      s.presence(present);
    }
    return Optional.of(s);
  }

  /** Whether {@code workerId} may lead from {@code r}: it trains in the recorded ring and was not fenced. */
  public static boolean mayLead(JobRecord r, String workerId) {
    return r.ring().contains(workerId) && !r.fenced().contains(workerId);
  }

  /**
   * The state of a new leadership (epoch {@code leaderEpoch}) that takes over from {@code r}.
   *
   * @param present the workers whose ZooKeeper presence node exists now (null: unknown)
   */
  public static CoordinatorState takeOver(JobSpec spec, Ticker ticker, CoordinatorSettings settings,
      String leaderId, long leaderEpoch, Lifecycle lifecycle, JobRecord r, Set<String> present) {
    ChangeSchedule changes = ChangeSchedule.inherited(leaderId, spec.scale().maxWorkers(),
        spec.training().steps() - 1, r.ring(), Optional.ofNullable(r.pending()), r.joinOrders(), leaderEpoch);
    CoordinatorState s = new CoordinatorState(spec, ticker, settings, leaderId, leaderEpoch, lifecycle, changes,
        r.position(), r.initial(), r.firstLoss());
    s.failures.fencedEarlier(r.fenced());
    if (r.checkpoint() != null) {
      s.failures.checkpointWritten(r.checkpoint(), Long.MAX_VALUE);
    }
    s.stragglers.resume(r.stragglerRuns());
    if (r.stop() != null) {
      s.inheritStop(r.stop());
    }
    s.presenceKnown(present);
    s.dirty();
    if (r.output() != null) {
      s.output(r.output());
      lifecycle.move(Phase.CANDIDATE, Phase.FINISHED);
      LOG.info("Taking over a finished job: model {}", r.output().modelPath());
      return s;
    }
    long step = r.position().step();
    if (r.departed()) {
      LOG.info("Taking over from leader {}, which left at a switch: going on from step {} on topology {}",
          r.leaderId(), step, r.ring().describe());
      Phase start = step >= spec.training().steps() ? Phase.FINISHING
          : changes.scheduled().isPresent() ? Phase.CHANGING : Phase.RUNNING;
      lifecycle.move(Phase.CANDIDATE, start);
      if (start == Phase.RUNNING) {
        // A change the leaver held unscheduled (asked for while its own switch was scheduled) is
        // due now; nothing else would schedule it until the next call.
        s.resumeSchedule();
      }
      return s;
    }
    lifecycle.move(Phase.CANDIDATE, Phase.RECOVERING);
    if (present != null && present.contains(r.leaderId()) && !r.leaderId().equals(leaderId)) {
      LOG.warn("Taking over from leader {}, which lost leadership but lives: every member recovers to one"
          + " position", r.leaderId());
      s.failures.gatherWithoutFailure(ticker.nanos());
    } else {
      LOG.warn("Taking over after the death of leader {}: topology {}, checkpoint {}", r.leaderId(),
          r.ring().describe(), r.checkpoint() == null ? "(none)" : r.checkpoint().path());
      s.failures.declare(r.leaderId(), "the leader's ZooKeeper session ended without a hand-over", ticker.nanos());
    }
    return s;
  }
}
