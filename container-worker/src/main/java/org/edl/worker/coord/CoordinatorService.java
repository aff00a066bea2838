package org.edl.worker.coord;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.edl.thrift.Coordinator;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobMeta;
import org.edl.thrift.JobProgress;
import org.edl.thrift.LeaderRecord;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.Registration;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Thrift face of the leader. Every worker serves one; it answers only while its worker
 * leads ({@link #lead()}), and otherwise refuses with "not the leader". The decisions live in
 * {@link CoordinatorState}; this class adds the lock, the long poll of {@code awaitTopology}
 * and the waits the leader itself needs.
 */
public final class CoordinatorService implements Coordinator.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorService.class);

  private final JobSpec spec;
  private final Ticker ticker;
  private final Duration switchAllowance;
  private final String selfId;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private CoordinatorState state;
  /** What a leaving leader handed to this worker; used if this worker is elected next. */
  private CoordinatorState.Handoff inherited;
  /** Set once this worker trains in a ring: it may then only lead a job handed to it. */
  private boolean member;
  /** Set when this worker is about to leave: it must not take the job over. */
  private boolean retired;
  /** The election chose this worker (whether or not it could take the job yet). */
  private boolean elected;
  /** Where a job restarted from a checkpoint begins; null: at step 0. */
  private JobMeta start;
  /** The latest presence of the job's workers in ZooKeeper, for a state created later too. */
  private Set<String> present;
  /** The newest checkpoint known before this worker led (the one the job was restored from). */
  private String checkpointPath;
  private JobMeta checkpointMeta;
  private CheckpointCheck checkpointCheck = CheckpointCheck.TRUSTING;
  /** Writes the leader's record to ZooKeeper (asynchronously, in order). */
  private Consumer<LeaderRecord> publisher = r -> { };
  /** Reads the record the last leader published, for a successor it did not hand over to. */
  private Supplier<Optional<LeaderRecord>> published = Optional::empty;
  /** Waits until every record asked for so far is written (at most the given time). */
  private Consumer<Duration> written = timeout -> { };
  private long publishedVersion = -1;
  /** How often a waiting recovery request re-applies the detector's timing rules. */
  private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

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
  }

  /** Where the leader's record goes and where a successor finds it (ZooKeeper; nowhere in unit tests). */
  public void recordStore(Consumer<LeaderRecord> write, Supplier<Optional<LeaderRecord>> read) {
    lock.lock();
    try {
      publisher = write;
      published = read;
    } finally {
      lock.unlock();
    }
  }

  /** As {@link #recordStore(Consumer, Supplier)}, with a wait for the writes asked for so far. */
  public void recordStore(Consumer<LeaderRecord> write, Supplier<Optional<LeaderRecord>> read,
      Consumer<Duration> awaitWritten) {
    lock.lock();
    try {
      written = awaitWritten;
    } finally {
      lock.unlock();
    }
    recordStore(write, read);
  }

  /**
   * A leader that leaves publishes the ring after its switch, and waits for it to be written,
   * before it gives up its latch: a successor elected before the hand-off reached it then goes
   * on from there instead of recovering from an older record (the one of the last switch or
   * checkpoint), which would send the whole job back to a checkpoint at a graceful scale-in.
   */
  public void publishDeparture(Duration timeout) {
    Consumer<Duration> await;
    lock.lock();
    try {
      if (state == null || !state.handedOver()) {
        return;
      }
      publisher.accept(state.record());
      await = written;
    } finally {
      lock.unlock();
    }
    await.accept(timeout);
  }

  /** Publishes the record when it changed since the last time (under the lock). */
  private void publish() {
    if (state == null || state.handedOver() || state.topologyVersion() == 0
        || state.recordVersion() == publishedVersion) {
      return;
    }
    publishedVersion = state.recordVersion();
    publisher.accept(state.record());
  }

  /** How consistent recovery checks the newest checkpoint before ordering it (set before leading). */
  public void checkpointCheck(CheckpointCheck check) {
    lock.lock();
    try {
      checkpointCheck = check;
      if (state != null) {
        state.checkpointCheck(check);
      }
    } finally {
      lock.unlock();
    }
  }

  /** This worker was elected: start answering, with the handed-over state if there is one. */
  public void lead() {
    lock.lock();
    try {
      elected = true;
      boolean inheritedForOthers = inherited != null && selfId != null
          && !CoordinatorState.contains(inherited.topology(), selfId);
      if (!retired && !inheritedForOthers && member && inherited == null && state == null) {
        Optional<LeaderRecord> record = readRecord();
        if (record.isPresent() && selfId != null && CoordinatorState.contains(record.get().getTopology(), selfId)) {
          // The leader died without handing over: rebuild from what it published.
          state = CoordinatorState.takeOver(spec, ticker, switchAllowance, selfId, record.get());
          state.checkpointCheck(checkpointCheck);
          LOG.warn("Coordinator took over after the death of leader {}: topology v{}, checkpoint {}",
              record.get().getLeaderId(), record.get().getTopology().getVersion(),
              record.get().isSetCheckpoint() ? record.get().getCheckpoint() : "(none)");
          if (present != null) {
            state.presence(present);
          }
          publish();
          changed.signalAll();
          return;
        }
      }
      if (retired || inheritedForOthers || (member && inherited == null && state == null)) {
        // Elected between a leader's departure and this worker's own (or with no job handed
        // over): serving a fresh state would lose the job; the others retry elsewhere.
        LOG.warn("Elected but not taking the job over ({})", retired ? "leaving" : "nothing was handed over");
        return;
      }
      if (state == null) {
        if (inherited != null) {
          state = CoordinatorState.resume(spec, ticker, switchAllowance, selfId, inherited);
          readRecord().ifPresent(state::adopt);
          LOG.info("Coordinator active with the handed-over job at step {}, topology v{}",
              inherited.meta().getStep(), inherited.topology().getVersion());
          inherited = null;
        } else if (start != null) {
          state = CoordinatorState.restored(spec, ticker, switchAllowance, selfId, start);
          LOG.info("Coordinator active for the restarted job: waiting for {} workers to register; the first"
              + " ring starts at step {} (sample position {})", spec.workers(), start.getStep(),
              start.getSamplesSeen());
        } else {
          state = new CoordinatorState(spec, ticker, switchAllowance, selfId);
          LOG.info("Coordinator active: waiting for {} workers to register", spec.workers());
        }
      }
      if (state != null) {
        state.checkpointCheck(checkpointCheck);
        if (checkpointPath != null) {
          state.checkpointWritten(checkpointPath, checkpointMeta);
        }
        if (present != null) {
          state.presence(present);
        }
        publish();
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private Optional<LeaderRecord> readRecord() {
    try {
      return published.get();
    } catch (RuntimeException e) {
      LOG.warn("Reading the last leader's record failed: {}", e.toString());
      return Optional.empty();
    }
  }

  /**
   * The job is restarted from a checkpoint: if this worker leads the first ring, the job begins
   * at {@code meta}'s step and sample cursor. Called before the election.
   */
  public void startFrom(JobMeta meta) {
    lock.lock();
    try {
      start = meta.deepCopy();
    } finally {
      lock.unlock();
    }
  }

  /** This worker trains in a ring now: a later election must hand it the job, never start afresh. */
  public void joined() {
    lock.lock();
    try {
      member = true;
    } finally {
      lock.unlock();
    }
  }

  /** This worker leaves at a scheduled step: never take the job over. */
  public void retire() {
    lock.lock();
    try {
      retired = true;
      inherited = null;
    } finally {
      lock.unlock();
    }
  }

  /** Leadership was lost: stop answering (waiters wake up and see it). */
  public void stepDown() {
    lock.lock();
    try {
      elected = false;
      if (state != null) {
        LOG.info("Coordinator stepped down at step {}", state.meta().getStep());
      }
      state = null;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public boolean isLeading() {
    lock.lock();
    try {
      return state != null && !state.handedOver();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Registration registerWorker(WorkerInfo worker) throws EdlError {
    lock.lock();
    try {
      CoordinatorState s = leading();
      long before = s.latestTopology().getVersion();
      Registration r = s.register(worker);
      LOG.info("Registered {} at {}:{}{}", worker.getWorkerId(), worker.getHost(),
          worker.getDataPort(), r.isPending() ? " as a newcomer for topology v" + r.getTopology().getVersion() : "");
      if (s.latestTopology().getVersion() != before || r.isPending()) {
        LOG.info("Topology v{}: {}", r.getTopology().getVersion(), ringText(r.getTopology()));
        changed.signalAll();
      }
      publish();
      return r;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void ready(String workerId, long topologyVersion) throws EdlError {
    lock.lock();
    try {
      Optional<SwitchOrder> order = leading().ready(workerId);
      LOG.info("{} is ready{}", workerId, order.map(o -> "; switch to v" + o.getTopologyVersion()
          + " at step " + o.getAtStep()).orElse(""));
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SwitchOrder awaitSwitch(String workerId, long topologyVersion, int timeoutMs) throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    lock.lock();
    try {
      while (true) {
        Optional<SwitchOrder> order = leading().orderFor(workerId);
        if (order.isPresent()) {
          return order.get();
        }
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return new SwitchOrder(topologyVersion, -1);
        }
        changed.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "interrupted");
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Topology awaitTopology(long afterVersion, int timeoutMs) throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    lock.lock();
    try {
      while (true) {
        if (state == null || state.handedOver()) {
          // awaitTopology declares no EdlError; an application exception carries the message.
          throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "not the leader");
        }
        if (state.topologyVersion() > afterVersion) {
          return state.topology();
        }
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return state.topology();
        }
        changed.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "interrupted");
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SyncReply sync(SyncReport report) throws EdlError {
    lock.lock();
    try {
      CoordinatorState s = leading();
      long before = s.meta().getStep();
      long version = s.topologyVersion();
      SyncReply reply = s.sync(report);
      if (s.meta().getStep() != before || s.recoveryPending()) {
        changed.signalAll();
      }
      if (s.topologyVersion() != version) {
        LOG.info("Switched to topology v{} after step {}: {}", s.topologyVersion(),
            s.meta().getStep() - 1, ringText(s.topology()));
      }
      publish();
      return reply;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until the recovery this worker is part of is decided (every survivor asked, or the
   * silent ones were declared failed), re-applying the detector's timing rules while it waits.
   */
  @Override
  public RecoveryOrder awaitRecovery(String workerId, long lastCompletedStep, long nextBatchStart, int timeoutMs)
      throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    lock.lock();
    try {
      Optional<RecoveryOrder> order = leading().requestRecovery(workerId, lastCompletedStep, nextBatchStart);
      while (order.isEmpty()) {
        changed.signalAll();
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return new RecoveryOrder(-1);
        }
        changed.awaitNanos(Math.min(left, RECHECK_NANOS));
        CoordinatorState s = leading();
        s.checkFailures(ticker.nanos());
        order = s.lastRecovery().filter(o -> !s.recoveryPending()
            && CoordinatorState.contains(o.getTopology(), workerId)
            && o.getTopologyVersion() == s.topologyVersion());
        if (order.isPresent()) {
          // Decided on another member's call: hand it out the way a fresh request would.
          order = s.requestRecovery(workerId, lastCompletedStep, nextBatchStart);
        }
      }
      LOG.info("Recovery for {}: topology v{} {} from step {}{}", workerId, order.get().getTopologyVersion(),
          order.get().getMode(), order.get().getNextStep(),
          order.get().isSetSourceId() ? ", model from " + order.get().getSourceId()
              : order.get().isSetCheckpoint() ? ", checkpoint " + order.get().getCheckpoint() : ", initial state");
      changed.signalAll();
      publish();
      return order.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "interrupted");
    } finally {
      lock.unlock();
    }
  }

  /** The workers whose ZooKeeper presence nodes exist now (every worker watches; the leader acts). */
  public void presence(Set<String> workers) {
    lock.lock();
    try {
      present = Set.copyOf(workers);
      if (state != null && !state.handedOver()) {
        state.presence(present);
        publish();
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** A checkpoint of this job exists at {@code path}: consistent recovery may go back to it. */
  public void checkpointWritten(String path, JobMeta at) {
    lock.lock();
    try {
      if (state != null && !state.handedOver()) {
        state.checkpointWritten(path, at);
        publish();
      } else if (checkpointMeta == null || at.getStep() >= checkpointMeta.getStep()) {
        checkpointPath = path;
        checkpointMeta = at.deepCopy();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether a failure is being recovered from now (waits for the old ring's steps give up). */
  public boolean recoveryPending() {
    lock.lock();
    try {
      return state != null && state.recoveryPending();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SwitchOrder leave(String workerId) throws EdlError {
    lock.lock();
    try {
      SwitchOrder order = leading().leave(workerId);
      LOG.info("{} asked to leave: {}", workerId, order.getAtStep() < 0
          ? "merged into a change waiting for newcomers" : "at step " + order.getAtStep());
      changed.signalAll();
      return order;
    } finally {
      lock.unlock();
    }
  }

  /** Migration in one switch: see {@link CoordinatorState#replace}. */
  @Override
  public SwitchOrder replace(List<String> leavers, int joiners) throws EdlError {
    lock.lock();
    try {
      SwitchOrder order = leading().replace(leavers, joiners);
      LOG.info("{} leave at the switch that admits {} newcomers ({})", leavers, joiners,
          order.getAtStep() < 0 ? "waiting for them" : "at step " + order.getAtStep());
      changed.signalAll();
      return order;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean cancelReplace(List<String> leavers) throws EdlError {
    lock.lock();
    try {
      boolean withdrawn = leading().cancelReplace(leavers);
      LOG.info("Replacement of {} {}", leavers, withdrawn ? "withdrawn: they stay" : "was not pending");
      changed.signalAll();
      return withdrawn;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stop-resume: every worker stops after the returned step, when this leader writes a
   * checkpoint into {@code directory}.
   */
  @Override
  public StopOrder stopForRestart(String directory) throws EdlError {
    lock.lock();
    try {
      StopOrder order = leading().stopForRestart(directory);
      LOG.info("Stop for a restart after step {}, checkpoint into {}", order.getAtStep(), order.getDirectory());
      changed.signalAll();
      return order;
    } finally {
      lock.unlock();
    }
  }

  /** The scheduled stop for a restart; empty when there is none or this worker does not lead. */
  public Optional<StopOrder> stopOrder() {
    lock.lock();
    try {
      return state == null ? Optional.empty() : state.stopOrder();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Accepts the job from a leaving leader. Taken while not leading: it is used when (and if) this
   * worker is elected next.
   */
  @Override
  public void handOff(JobMeta meta, Topology topology, SwitchOrder pending, Map<String, Integer> stragglerRuns)
      throws EdlError {
    lock.lock();
    try {
      if (state != null && !state.handedOver()) {
        throw CoordinatorState.error("handOff", selfId, "this worker already leads the job");
      }
      if (retired) {
        return;
      }
      inherited = new CoordinatorState.Handoff(meta.deepCopy(), topology.deepCopy(),
          pending == null || !pending.isSetTopology() ? Optional.empty() : Optional.of(pending.deepCopy()),
          stragglerRuns == null ? Map.of() : Map.copyOf(stragglerRuns));
      LOG.info("Received the job at step {} (topology v{}) from the leaving leader", meta.getStep(),
          topology.getVersion());
      if (elected && state == null) {
        lead();
      }
    } finally {
      lock.unlock();
    }
  }

  /** What this leader hands to its successor; empty when not leading. */
  public Optional<CoordinatorState.Handoff> handoff() {
    lock.lock();
    try {
      return state == null ? Optional.empty() : Optional.of(state.handoff());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until every member reported {@code step} (the leader waits for the last step before
   * it writes the model and closes its server, so that no worker's last report is cut off).
   *
   * @return false on timeout or when this worker stopped leading
   */
  public boolean awaitStepComplete(long step, Duration timeout) throws InterruptedException {
    long deadline = ticker.nanos() + timeout.toNanos();
    lock.lock();
    try {
      while (state != null && !state.isComplete(step)) {
        long left = deadline - ticker.nanos();
        if (left <= 0 || state.recoveryPending()) {
          return false;
        }
        changed.awaitNanos(Math.min(left, RECHECK_NANOS));
        if (state != null) {
          state.checkFailures(ticker.nanos());
        }
      }
      return state != null;
    } finally {
      lock.unlock();
    }
  }

  /** The progress report for the ApplicationMaster; empty when not leading. */
  public Optional<JobProgress> progress() {
    lock.lock();
    try {
      return state == null || state.handedOver() ? Optional.empty() : Optional.of(state.progress());
    } finally {
      lock.unlock();
    }
  }

  /** The job meta-data; empty when not leading. */
  public Optional<JobMeta> meta() {
    lock.lock();
    try {
      return state == null ? Optional.empty() : Optional.of(state.meta());
    } finally {
      lock.unlock();
    }
  }

  /** Whole-run figures for the metrics file; empty when not leading. */
  public Optional<RunSummary> summary() {
    lock.lock();
    try {
      if (state == null) {
        return Optional.empty();
      }
      JobMeta m = state.meta();
      return Optional.of(new RunSummary(m.getStep(), state.topology().getRingSize(),
          state.firstLoss().orElse(Double.NaN), m.isSetLastLoss() ? m.getLastLoss() : Double.NaN,
          state.overallSamplesPerSecond(), m.getSamplesSeen()));
    } finally {
      lock.unlock();
    }
  }

  /** What the leader knows about a finished (or finishing) run. */
  public record RunSummary(long steps, int workers, double firstLoss, double lastLoss,
      double samplesPerSecond, long samples) {}

  private CoordinatorState leading() throws EdlError {
    if (state == null || state.handedOver()) {
      throw CoordinatorState.error("coordinator", "this worker", "is not the leader");
    }
    return state;
  }

  static String ringText(Topology t) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < t.getRingSize(); i++) {
      WorkerInfo w = t.getRing().get(i);
      b.append(i == 0 ? "" : ", ").append(i).append('=').append(w.getWorkerId())
          .append('@').append(w.getHost()).append(':').append(w.getDataPort());
    }
    return "[" + b + "]";
  }
}
