package org.edl.worker.coord.rpc;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.edl.job.JobSpec;
import org.edl.thrift.Coordinator;
import org.edl.thrift.EdlError;
import org.edl.thrift.FinishReply;
import org.edl.thrift.HeartbeatReply;
import org.edl.thrift.JobProgress;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.Registration;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.coord.Admission;
import org.edl.worker.coord.CheckpointCheck;
import org.edl.worker.coord.CheckpointRef;
import org.edl.worker.coord.CoordinatorSettings;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.FinishAnswer;
import org.edl.worker.coord.HeartbeatAnswer;
import org.edl.worker.coord.JobOutput;
import org.edl.worker.coord.JobPosition;
import org.edl.worker.coord.JobRecord;
import org.edl.worker.coord.JoinerShare;
import org.edl.worker.coord.LeaderStore;
import org.edl.worker.coord.Lifecycle;
import org.edl.worker.coord.Phase;
import org.edl.worker.coord.RecoveryPlan;
import org.edl.worker.coord.Refused;
import org.edl.worker.coord.RunSummary;
import org.edl.worker.coord.StopPlan;
import org.edl.worker.coord.Succession;
import org.edl.worker.coord.SwitchPlan;
import org.edl.worker.coord.SyncAnswer;
import org.edl.worker.coord.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Thrift face of a worker's coordinator. Every worker serves one; it answers while its
 * {@link Lifecycle} is in a leading {@link Phase} and refuses with "not the leader" otherwise.
 * The decisions live in {@link CoordinatorState}; this class adds the lock, the long polls, the
 * leader's timer, the conversion to and from Thrift ({@link Wire}) and publishing the record
 * through the {@link LeaderStore} whenever it changed.
 */
public final class CoordinatorService implements Coordinator.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorService.class);
  /** How often the leader applies the detector's timing rules, and a waiting call looks again. */
  private static final long TICK_MS = 100;

  private final JobSpec spec;
  private final Ticker ticker;
  private final Duration switchAllowance;
  /** The model's parameters, once this worker knows them; a joiner's expected lag follows ({@link JoinerShare}). */
  private volatile long modelFloats;
  private final String selfId;
  private final Lifecycle lifecycle;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private CoordinatorState state;
  private LeaderStore store = LeaderStore.unpersisted();
  private CheckpointCheck checkpointCheck = CheckpointCheck.TRUSTING;
  /** The checkpoint a restarted job begins from (null: a fresh job at step 0). */
  private CheckpointRef restoredFrom;
  private int firstRingSize;
  /** The latest presence of the job's workers in ZooKeeper, for a state created later too. */
  private Set<String> present;
  private long publishedVersion = -1;
  private final LeaderTimer timer;

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
    this.ticker = ticker;
    this.switchAllowance = switchAllowance;
    this.selfId = selfId;
    this.lifecycle = new Lifecycle(selfId == null ? "coordinator" : selfId);
    this.timer = new LeaderTimer(selfId == null ? "coordinator" : selfId, TICK_MS, this::tick);
  }

  public Lifecycle lifecycle() {
    return lifecycle;
  }

  public Phase phase() {
    return lifecycle.phase();
  }

  /** Where epochs are claimed and the record is kept (set before the election). */
  public void store(LeaderStore s) {
    lock.lock();
    try {
      store = s;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The size of the model every member broadcasts to joiners: how much later than the survivors
   * a joiner starts its first step follows from it. Unset (a script's model, which its own process
   * group moves): joiners take even parts.
   */
  public void modelFloats(long floats) {
    modelFloats = floats;
  }

  /** How consistent recovery checks the newest checkpoint before ordering it (set before leading). */
  public void checkpointCheck(CheckpointCheck check) {
    lock.lock();
    try {
      checkpointCheck = check;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The job restarts from {@code checkpoint}: should this worker lead the first ring, the job
   * begins at its position with {@code workers} workers. Called before the election.
   */
  public void startFrom(CheckpointRef checkpoint, int workers) {
    lock.lock();
    try {
      restoredFrom = checkpoint;
      firstRingSize = workers;
    } finally {
      lock.unlock();
    }
  }

  /**
   * This worker was elected: claim a new epoch and lead from the newest record (or a fresh or
   * restored job before the first ring formed).
   *
   * @return false when it does not lead after all (it is not a candidate any more, it is not in
   *     the recorded ring, or the epoch could not be claimed): the caller gives up the election
   */
  public boolean lead() {
    lock.lock();
    try {
      if (lifecycle.phase() != Phase.CANDIDATE) {
        LOG.warn("Elected but not leading: the coordinator is {}", lifecycle.phase());
        return false;
      }
      long epoch;
      Optional<JobRecord> record;
      try {
        epoch = store.claimEpoch();
        record = store.read();
      } catch (Exception e) {
        lifecycle.fence("could not claim a leader epoch: " + e);
        return false;
      }
      CoordinatorSettings settings = new CoordinatorSettings(switchAllowance,
          () -> lifecycle.phase().leading() && store.stillCurrent(epoch), checkpointCheck, CoordinatorState.PAUSE,
          () -> JoinerShare.expectedLagSeconds(modelFloats));
      Optional<CoordinatorState> begun = Succession.begin(spec, ticker, settings, selfId, epoch, lifecycle, record,
          new Succession.Restart(Optional.ofNullable(restoredFrom), firstRingSize), present);
      if (begun.isEmpty()) {
        return false;
      }
      state = begun.get();
      if (present != null) {
        state.presence(present);
      }
      publish();
      timer.start();
      changed.signalAll();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Leadership is over (ZooKeeper session suspended or lost, latch gone): never act again. */
  public void fence(String why) {
    lifecycle.fence(why);
    lock.lock();
    try {
      timer.stop();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** This worker's run is over or it leaves: it never takes the job over. */
  public void retire() {
    lifecycle.retire();
    lock.lock();
    try {
      timer.stop();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public boolean isLeading() {
    return lifecycle.leading();
  }

  /** The epoch this coordinator leads (or led) under; 0 before it ever led. */
  public long leaderEpoch() {
    lock.lock();
    try {
      return state == null ? 0 : state.leaderEpoch();
    } finally {
      lock.unlock();
    }
  }

  /** Whether this leadership is still the newest; the output writers ask before they commit. */
  public boolean stillLeading() {
    long epoch = leaderEpoch();
    return epoch > 0 && lifecycle.leading() && store.stillCurrent(epoch);
  }

  @Override
  public Registration registerWorker(WorkerInfo worker) throws EdlError {
    lock.lock();
    try {
      CoordinatorState s = leading();
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
        changed.signalAll();
      }
      publish();
      return Wire.registration(a, spec, s.leaderEpoch());
    } catch (Refused r) {
      throw Wire.error(r);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void ready(String workerId, long topologyVersion) throws EdlError {
    Optional<SwitchPlan> order = decide(s -> s.ready(workerId));
    LOG.info("{} is ready{}", workerId, order.map(o -> "; switch to v" + o.version() + " at step " + o.atStep())
        .orElse(""));
  }

  @Override
  public SwitchOrder awaitSwitch(String workerId, long topologyVersion, int timeoutMs) throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    return holdUntil(deadline, s -> s.orderFor(workerId).map(Wire::switchOrder).orElseGet(() -> {
      SwitchOrder none = new SwitchOrder(topologyVersion, -1);
      none.setLeaderEpoch(s.leaderEpoch());
      return none;
    }), o -> o.getAtStep() >= 0);
  }

  @Override
  public Topology awaitTopology(long afterVersion, int timeoutMs) throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    lock.lock();
    try {
      while (true) {
        if (state == null || !lifecycle.leading()) {
          // awaitTopology declares no EdlError; an application exception carries the message.
          throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "not the leader");
        }
        if (state.ring().version() > afterVersion) {
          return Wire.topology(state.ring());
        }
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return Wire.topology(state.ring());
        }
        changed.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      throw interrupted();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SyncReply sync(SyncReport report) throws EdlError {
    lock.lock();
    try {
      CoordinatorState s = leading();
      long before = s.position().step();
      long version = s.ring().version();
      SyncAnswer answer = s.sync(Wire.stepReport(report));
      if (s.position().step() != before || s.recoveryPending()) {
        changed.signalAll();
      }
      if (s.ring().version() != version) {
        LOG.info("Switched to topology {} after step {}", s.ring().describe(), s.position().step() - 1);
      }
      publish();
      return Wire.syncReply(answer, s.leaderEpoch());
    } catch (Refused r) {
      throw Wire.error(r);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until the recovery this worker is part of is decided (every survivor asked, or the
   * silent ones were declared failed), re-applying the detector's timing rules while it waits.
   */
  @Override
  public RecoveryOrder awaitRecovery(String workerId, long lastCompletedStep, long nextBatchStart, int timeoutMs,
      List<String> brokenLinks) throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    lock.lock();
    try {
      CoordinatorState s = leading();
      Optional<RecoveryPlan> order = s.requestRecovery(workerId, lastCompletedStep, nextBatchStart,
          brokenLinks == null ? List.of() : brokenLinks);
      publish();
      while (order.isEmpty()) {
        changed.signalAll();
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          RecoveryOrder none = new RecoveryOrder(-1);
          none.setLeaderEpoch(s.leaderEpoch());
          return none;
        }
        changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(TICK_MS)));
        s = leading();
        s.tick(ticker.nanos());
        publish();
        order = s.decidedFor(workerId);
      }
      RecoveryPlan o = order.get();
      LOG.info("Recovery for {}: {}", workerId, o.describe());
      changed.signalAll();
      return Wire.recoveryOrder(o);
    } catch (Refused r) {
      throw Wire.error(r);
    } catch (InterruptedException e) {
      throw interrupted();
    } finally {
      lock.unlock();
    }
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
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, Math.min(holdMs, MAX_HOLD_MS)));
    decide(s -> s.heartbeat(workerId, leaderEpoch));
    return Wire.heartbeatReply(holdUntil(deadline, s -> s.news(workerId, knownSwitch),
        HeartbeatAnswer::news));
  }

  @Override
  public FinishReply awaitFinish(String workerId, long lastStep, int timeoutMs) throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    return holdUntil(deadline, s -> {
      FinishAnswer a = s.finishStatus(workerId);
      if (a.done()) {
        changed.signalAll();
      }
      return Wire.finishReply(a, s.leaderEpoch());
    }, r -> r.isDone() || r.isRecover());
  }

  /**
   * Asks {@code ask} under the lock, again after every change and tick, until {@code settled}
   * holds for its answer or {@code deadline} (the ticker's) has passed; returns the last answer.
   */
  private <T> T holdUntil(long deadline, Decision<T> ask, java.util.function.Predicate<T> settled)
      throws TException {
    lock.lock();
    try {
      while (true) {
        T answer = ask.apply(leading());
        long left = deadline - ticker.nanos();
        if (settled.test(answer) || left <= 0) {
          return answer;
        }
        changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(TICK_MS)));
      }
    } catch (Refused r) {
      throw Wire.error(r);
    } catch (InterruptedException e) {
      throw interrupted();
    } finally {
      lock.unlock();
    }
  }

  /** The workers whose ZooKeeper presence nodes exist now (every worker watches; the leader acts). */
  public void presence(Set<String> workers) {
    lock.lock();
    try {
      present = Set.copyOf(workers);
      if (state != null && lifecycle.leading()) {
        state.presence(present);
        publish();
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** A checkpoint of this job exists at {@code ref}: consistent recovery may go back to it. */
  public void checkpointWritten(CheckpointRef ref) {
    lock.lock();
    try {
      if (state != null && lifecycle.leading()) {
        state.checkpointWritten(ref);
        publish();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Waits (at most {@code timeout}) until the records published so far are written or refused. */
  public void awaitPublished(Duration timeout) {
    store.awaitPublished(timeout);
  }

  /** Whether a failure is being recovered from now (waits for the old ring's steps give up). */
  public boolean recoveryPending() {
    return lifecycle.phase() == Phase.RECOVERING;
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

  /** The scheduled stop for a restart; empty when there is none or this worker never led. */
  public Optional<StopPlan> stopPlan() {
    lock.lock();
    try {
      return state == null ? Optional.empty() : state.stopPlan();
    } finally {
      lock.unlock();
    }
  }

  /**
   * A leader that left at a switch publishes the record of the ring after it and waits until it
   * is written, before it gives up the election: the successor goes on from there.
   */
  public void departed(Duration timeout) {
    lock.lock();
    try {
      if (state == null || lifecycle.phase() != Phase.HANDED_OVER) {
        return;
      }
      publish();
    } finally {
      lock.unlock();
    }
    store.awaitPublished(timeout);
  }

  /**
   * The model and metrics are written: the record says so (and is written before this returns),
   * then every member waiting in {@code awaitFinish} is told it may exit.
   */
  public void finished(JobOutput output, Duration timeout) throws Refused {
    recordAndAwait(s -> s.finished(output), timeout);
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The stop's checkpoint is at {@code checkpoint}: the record says so (written before this
   * returns, so that the restarted job's workers lead afresh), and this worker leads no more.
   */
  public void stopped(String checkpoint, Duration timeout) throws Refused {
    recordAndAwait(s -> s.stopped(checkpoint), timeout);
    retire();
  }

  /**
   * Applies an end of the job to the state this worker led, publishes the record and waits for it
   * to be written: what follows (members told to exit, the election given up) needs it durable.
   */
  private void recordAndAwait(Ending end, Duration timeout) throws Refused {
    lock.lock();
    try {
      if (state == null) {
        throw new Refused(Refused.Kind.NOT_LEADER, "coordinator", String.valueOf(selfId), "never led");
      }
      end.apply(state);
      publish();
    } finally {
      lock.unlock();
    }
    store.awaitPublished(timeout);
  }

  /** Waits until every member of the final ring heard that the output is written (at most {@code timeout}). */
  public boolean awaitEveryoneTold(Duration timeout) throws InterruptedException {
    long deadline = ticker.nanos() + timeout.toNanos();
    lock.lock();
    try {
      while (state != null && !state.everyoneTold()) {
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(TICK_MS)));
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The leader at the job's end waits here until the last step is complete and nothing else is
   * under way: it returns FINISHING (write the output), FINISHED (it is written), RECOVERING (a
   * member failed first: recover), or the phase it found when it stopped leading or the wait
   * ran out.
   */
  public Phase awaitEnd(Duration timeout) throws InterruptedException {
    long deadline = ticker.nanos() + timeout.toNanos();
    lock.lock();
    try {
      while (true) {
        Phase p = lifecycle.phase();
        if (p == Phase.FINISHING || p == Phase.FINISHED || p == Phase.RECOVERING || !p.leading()) {
          return p;
        }
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return p;
        }
        changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(TICK_MS)));
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until every member reported {@code step} (the leader waits for a stop step before it
   * writes the checkpoint, and a leaving leader for its switch's step).
   *
   * @return false on timeout, while a recovery is pending, or when this worker stopped leading
   */
  public boolean awaitStepComplete(long step, Duration timeout) throws InterruptedException {
    long deadline = ticker.nanos() + timeout.toNanos();
    lock.lock();
    try {
      while (state != null && lifecycle.leading() && !state.isComplete(step)) {
        long left = deadline - ticker.nanos();
        if (left <= 0 || state.recoveryPending()) {
          return false;
        }
        changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(TICK_MS)));
      }
      return state != null && lifecycle.leading() && state.isComplete(step);
    } finally {
      lock.unlock();
    }
  }

  /** The progress report for the ApplicationMaster; empty when not leading. */
  public Optional<JobProgress> progress() {
    lock.lock();
    try {
      return state == null || !lifecycle.leading() ? Optional.empty() : Optional.of(Wire.progress(state.progress()));
    } finally {
      lock.unlock();
    }
  }

  /** The job position; empty when not leading. */
  public Optional<JobPosition> position() {
    lock.lock();
    try {
      return state == null || !lifecycle.leading() ? Optional.empty() : Optional.of(state.position());
    } finally {
      lock.unlock();
    }
  }

  /** Whole-run figures for the metrics file; empty when this worker never led. */
  public Optional<RunSummary> summary() {
    lock.lock();
    try {
      if (state == null) {
        return Optional.empty();
      }
      JobPosition p = state.position();
      return Optional.of(new RunSummary(p.step(), state.ring().size(), state.firstLoss().orElse(Double.NaN),
          p.lastLoss(), state.overallSamplesPerSecond(), p.samplesSeen(), state.leaderEpoch()));
    } finally {
      lock.unlock();
    }
  }

  /** Publishes the record when it changed since the last time (under the lock). */
  private void publish() {
    if (state == null || state.ring().version() == 0 || state.recordVersion() == publishedVersion
        || !(lifecycle.leading() || lifecycle.phase() == Phase.HANDED_OVER)) {
      return;
    }
    publishedVersion = state.recordVersion();
    store.publish(state.record(), why -> fence("superseded: " + why));
  }

  /** One decision of the leader's, under the lock, with a refusal turned into the user error it is. */
  @FunctionalInterface
  private interface Decision<T> {
    T apply(CoordinatorState s) throws Refused, EdlError;
  }

  /** The job's end (output written, or stopped for a restart) as the state this worker led records it. */
  @FunctionalInterface
  private interface Ending {
    void apply(CoordinatorState s) throws Refused;
  }

  private <T> T decide(Decision<T> d) throws EdlError {
    lock.lock();
    try {
      T result = d.apply(leading());
      changed.signalAll();
      publish();
      return result;
    } catch (Refused r) {
      throw Wire.error(r);
    } finally {
      lock.unlock();
    }
  }

  private CoordinatorState leading() throws EdlError {
    if (state == null || !lifecycle.leading()) {
      Phase p = lifecycle.phase();
      throw Wire.error(new Refused(Refused.Kind.NOT_LEADER, "coordinator", "this worker",
          "is not the leader" + (p == Phase.HANDED_OVER ? " any more (handed over)" : " (" + p + ")")));
    }
    return state;
  }

  private void tick() {
    lock.lock();
    try {
      if (state != null && lifecycle.leading()) {
        state.tick(ticker.nanos());
        publish();
        changed.signalAll();
      }
    } catch (RuntimeException e) {
      LOG.warn("Leader timer: {}", e.toString(), e);
    } finally {
      lock.unlock();
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
