package org.edl.worker.coord.rpc;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.edl.job.JobSpec;
import org.edl.thrift.Coordinator;
import org.edl.thrift.EdlError;
import org.edl.thrift.FinishReply;
import org.edl.thrift.HeartbeatReply;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.Registration;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.coord.Admission;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.HeartbeatAnswer;
import org.edl.worker.coord.Leadership;
import org.edl.worker.coord.RecoveryPlan;
import org.edl.worker.coord.Refused;
import org.edl.worker.coord.StopPlan;
import org.edl.worker.coord.SwitchPlan;
import org.edl.worker.coord.SyncAnswer;
import org.edl.worker.coord.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Thrift face of a worker's coordinator. Every worker serves one; it answers while its
 * {@link Leadership} leads and refuses with "not the leader" otherwise. Each call is a decision
 * or a hold on the leadership's one thread; this class converts to and from Thrift
 * ({@link Wire}) and logs what the leader decided.
 */
public final class CoordinatorService implements Coordinator.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorService.class);

  private final JobSpec spec;
  private final Leadership leadership;

  /** A coordinator for tests of formation: default switch allowance, no self id. */
  public CoordinatorService(JobSpec spec, Ticker ticker) {
    this(spec, ticker, CoordinatorState.DEFAULT_SWITCH_ALLOWANCE, null);
  }

  /**
   * @param switchAllowance T_a, how far ahead switches are scheduled
   * @param selfId          the worker this service runs in
   */
  public CoordinatorService(JobSpec spec, Ticker ticker, Duration switchAllowance, String selfId) {
    this.spec = spec;
    this.leadership = new Leadership(spec, ticker, switchAllowance, selfId);
  }

  /** The leadership this service answers for; the worker's runtime uses it directly. */
  public Leadership leadership() {
    return leadership;
  }

  @Override
  public Registration registerWorker(WorkerInfo worker) throws EdlError {
    return decide(s -> {
      long before = s.latestRing().version();
      Admission a = s.register(Wire.member(worker));
      if (a.retryAfterMs() > 0) {
        LOG.info("{} asks to register while the job is {}: asked to come back", worker.getWorkerId(), s.phase());
      } else {
        LOG.info("Registered {} at {}:{}{}", worker.getWorkerId(), worker.getHost(), worker.getDataPort(),
            a.pending() ? " as a newcomer for topology v" + a.ring().version() : "");
      }
      if (s.latestRing().version() != before || a.pending()) {
        LOG.info("Topology {}", a.ring().describe());
      }
      return Wire.registration(a, spec, s.leaderEpoch());
    });
  }

  @Override
  public void ready(String workerId, long topologyVersion) throws EdlError {
    Optional<SwitchPlan> order = decide(s -> s.ready(workerId));
    LOG.info("{} is ready{}", workerId, order.map(o -> "; switch to v" + o.version() + " at step " + o.atStep())
        .orElse(""));
  }

  @Override
  public SwitchOrder awaitSwitch(String workerId, long topologyVersion, int timeoutMs) throws TException {
    return holdUntil(timeoutMs, s -> s.orderFor(workerId).map(Wire::switchOrder).orElseGet(() -> {
      SwitchOrder none = new SwitchOrder(topologyVersion, -1);
      none.setLeaderEpoch(s.leaderEpoch());
      return none;
    }), o -> o.getAtStep() >= 0);
  }

  @Override
  public Topology awaitTopology(long afterVersion, int timeoutMs) throws TException {
    try {
      return Wire.topology(leadership.hold(CoordinatorState::ring, r -> r.version() > afterVersion, millis(timeoutMs)));
    } catch (Refused r) {
      // awaitTopology declares no EdlError; an application exception carries the message.
      throw new TApplicationException(TApplicationException.INTERNAL_ERROR, r.getMessage());
    } catch (InterruptedException e) {
      throw interrupted();
    }
  }

  @Override
  public SyncReply sync(SyncReport report) throws EdlError {
    return decide(s -> {
      long version = s.ring().version();
      SyncAnswer answer = s.sync(Wire.stepReport(report));
      if (s.ring().version() != version) {
        LOG.info("Switched to topology {} after step {}", s.ring().describe(), s.position().step() - 1);
      }
      return Wire.syncReply(answer, s.leaderEpoch());
    });
  }

  /**
   * Waits until the recovery this worker is part of is decided (every survivor asked, or the
   * silent ones were declared failed by the leader's tick).
   */
  @Override
  public RecoveryOrder awaitRecovery(String workerId, long lastCompletedStep, long nextBatchStart, int timeoutMs,
      List<String> brokenLinks) throws TException {
    long epoch = decide(s -> {
      s.requestRecovery(workerId, lastCompletedStep, nextBatchStart, brokenLinks == null ? List.of() : brokenLinks);
      return s.leaderEpoch();
    });
    Optional<RecoveryPlan> order = holdUntil(timeoutMs, s -> s.decidedFor(workerId), Optional::isPresent);
    if (order.isEmpty()) {
      RecoveryOrder none = new RecoveryOrder(-1);
      none.setLeaderEpoch(epoch);
      return none;
    }
    LOG.info("Recovery for {}: {}", workerId, order.get().describe());
    return Wire.recoveryOrder(order.get());
  }

  @Override
  public HeartbeatReply heartbeat(String workerId, long leaderEpoch, long ringVersion) throws EdlError {
    return Wire.heartbeatReply(decide(s -> s.heartbeat(workerId, leaderEpoch)));
  }

  /** The longest a heartbeat is held: well inside a member's call timeout for heartbeats. */
  static final int MAX_HOLD_MS = 1_000;

  @Override
  public HeartbeatReply heartbeatAwaiting(String workerId, long leaderEpoch, long ringVersion, long knownSwitch,
      int holdMs) throws TException {
    decide(s -> s.heartbeat(workerId, leaderEpoch));
    return Wire.heartbeatReply(holdUntil(Math.min(holdMs, MAX_HOLD_MS), s -> s.news(workerId, knownSwitch),
        HeartbeatAnswer::news));
  }

  @Override
  public FinishReply awaitFinish(String workerId, long lastStep, int timeoutMs) throws TException {
    return holdUntil(timeoutMs, s -> Wire.finishReply(s.finishStatus(workerId), s.leaderEpoch()),
        r -> r.isDone() || r.isRecover());
  }

  /** {@link Leadership#hold}, its refusal the user error it is. */
  private <T> T holdUntil(int timeoutMs, Leadership.Decision<T> ask, Predicate<T> settled) throws EdlError {
    try {
      return leadership.hold(ask, settled, millis(timeoutMs));
    } catch (Refused r) {
      throw Wire.error(r);
    } catch (InterruptedException e) {
      throw interrupted();
    }
  }

  private static long millis(int timeoutMs) {
    return TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
  }

  @Override
  public SwitchOrder leave(String workerId) throws EdlError {
    SwitchPlan order = decide(s -> s.leave(workerId));
    LOG.info("{} asked to leave: {}", workerId, order.atStep() < 0
        ? "merged into a change waiting for newcomers" : "at step " + order.atStep());
    return Wire.switchOrder(order);
  }

  /** Migration in one switch: see {@link ChangeSchedule#replace}. */
  @Override
  public SwitchOrder replace(List<String> leavers, int joiners) throws EdlError {
    SwitchPlan order = decide(s -> s.replace(leavers, joiners));
    LOG.info("{} leave at the switch that admits {} newcomers ({})", leavers, joiners,
        order.atStep() < 0 ? "waiting for them" : "at step " + order.atStep());
    return Wire.switchOrder(order);
  }

  @Override
  public boolean cancelReplace(List<String> leavers) throws EdlError {
    boolean withdrawn = decide(s -> s.cancelReplace(leavers));
    LOG.info("Replacement of {} {}", leavers, withdrawn ? "withdrawn: they stay" : "was not pending");
    return withdrawn;
  }

  /** Stop-resume: every worker stops after the returned step, when this leader checkpoints into {@code directory}. */
  @Override
  public StopOrder stopForRestart(String directory) throws EdlError {
    StopPlan order = decide(s -> s.stopForRestart(directory));
    LOG.info("Stop for a restart after step {}, checkpoint into {}", order.atStep(), order.directory());
    return Wire.stopOrder(order);
  }

  /** {@link Leadership#decide}, its refusal the user error it is. */
  private <T> T decide(Leadership.Decision<T> d) throws EdlError {
    try {
      return leadership.decide(d);
    } catch (Refused r) {
      throw Wire.error(r);
    }
  }

  /**
   * A call's wait ended by the server stopping: this worker leads no more, and the caller hears it
   * as from any worker that does not lead, so it looks for the successor. An internal error here
   * made a member waiting at the end for a leader that died give up with the job (a clean-clone
   * run of ProtocolFaultTest).
   */
  private static EdlError interrupted() {
    Thread.currentThread().interrupt();
    return Wire.error(new Refused(Refused.Kind.NOT_LEADER, "coordinator", "this worker",
        "is stopping its coordinator"));
  }
}
