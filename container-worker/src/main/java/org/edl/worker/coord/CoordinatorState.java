package org.edl.worker.coord;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobMeta;
import org.edl.thrift.JobProgress;
import org.edl.thrift.LeaderRecord;
import org.edl.thrift.RecoveryMode;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.Registration;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.edl.worker.job.Recovery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's decisions, with no Thrift server, socket or lock in it: who is registered, which
 * ring is published (with its version), the job meta-data, the per-batch reports and the schedule
 * of topology switches. Not thread-safe; {@link CoordinatorService} serialises calls. Time comes
 * from an injected {@link Ticker}.
 *
 * <p>Formation: registrations are collected until {@link JobSpec#workers()} workers are known;
 * then topology version 1 is published, ordered by worker id (the YARN container id), so the ring
 * does not depend on which worker happened to register first. Version 0 is "no ring yet".
 *
 * <p>Elastic changes: once version 1 runs, a registration is a newcomer and {@link #leave} names a
 * leaver. Both go into one pending {@link Change} (so a migration is one switch): topology v+1 is
 * the surviving ring in its order followed by the newcomers by id. When every newcomer reported
 * {@link #ready}, the switch is scheduled at step {@code t + k}, {@code t} the highest step any
 * member reported (nobody can be past its batch end yet), {@code k = max(1, ceil(T_a / T_b))}.
 * Changes that arrive while a switch is scheduled wait for the next one. The switch takes effect
 * here when that step completes.
 *
 * <p>Migration is one switch through {@link #replace}: it names the leavers before their
 * replacements are launched and says how many newcomers to wait for. A newcomer reports ready
 * right after it registers, so a plain {@link #leave} could not be timed to meet it; the
 * replacement holds the change unscheduled until that many joiners are in it and ready. Until
 * then the leavers train on as members (nobody waits for a newcomer that never comes), and the
 * awaited newcomers are admitted within max-workers because the leavers already count as gone.
 *
 * <p>Stop for a restart (the stop-resume baseline): {@link #stopForRestart} picks a future step
 * the same way, {@code t + k}, and every member learns it from its sync replies up to that step;
 * after it nobody trains on, and no change is taken any more. A job restored from a checkpoint
 * starts from the checkpoint's meta-data instead of step 0 ({@link #restored}).
 *
 * <p>Stragglers: each completed step's compute times (what each member spent before the
 * all-reduce) go to a {@link StragglerDetector}; a worker it names leaves by the same {@link #leave}
 * an operator's scale-in takes, and the removal is kept in {@link #events} for the status.
 *
 * <p>Failures: a member is declared failed when its ZooKeeper presence node vanishes
 * ({@link #presence}) or when the {@link FailureDetector} finds it missed a sync or stayed silent
 * through a recovery. From then on it is fenced (its calls are refused) and a recovery is
 * pending: every sync reply says {@code recover}, and each survivor stops training on the old
 * ring and asks ({@link #requestRecovery}) with the last step its model completed. Once every
 * survivor asked, one {@link RecoveryOrder} is decided: the survivors' ring as topology v+1 and
 * where training resumes (consistent: the newest periodic checkpoint the leader registered, or
 * the job's initial state; approximate: the survivor with the highest completed step, which
 * broadcasts its model). The job meta-data is set back (or forward) to that position, so no
 * step is counted twice. A change that was scheduled is unscheduled (its newcomers are asked
 * to the next switch); a failed worker in a pending change is dropped from it.
 */
public final class CoordinatorState {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorState.class);
  /** Events kept for the status; older ones are in the leader's log. */
  static final int MAX_EVENTS = 10;
  /** Steps of history used for the current samples/s. */
  private static final int RATE_WINDOW = 20;
  public static final Duration DEFAULT_SWITCH_ALLOWANCE = Duration.ofMillis(500);
  /** In the refusal of a worker declared failed: {@link CoordinatorClient#isFenced} looks for it. */
  public static final String FENCED = "was declared failed";
  /** Steps at the start of a ring that get the detector's grace (connections, JIT, broadcast). */
  static final int GRACE_STEPS = 3;
  /** A recovering worker whose model was lost half way (a broadcast that broke) asks with this. */
  public static final long MODEL_LOST = Long.MIN_VALUE;

  /** A failure being recovered from: who failed, who asked (with their completed step and cursor). */
  private static final class PendingRecovery {
    final long sinceNanos;
    final Map<String, String> failed = new LinkedHashMap<>();
    final Map<String, long[]> asked = new LinkedHashMap<>();

    PendingRecovery(long sinceNanos) {
      this.sinceNanos = sinceNanos;
    }
  }

  /** Everything a successor needs to carry on as leader. */
  /** {@code pending}: the next change, scheduled or (atStep -1) still waiting for newcomers. */
  public record Handoff(JobMeta meta, Topology topology, Optional<SwitchOrder> pending,
      Map<String, Integer> stragglerRuns) {

    public Handoff(JobMeta meta, Topology topology, Optional<SwitchOrder> pending) {
      this(meta, topology, pending, Map.of());
    }
  }

  /** One pending topology change. {@code order} is null until it is scheduled. */
  private static final class Change {
    final Map<String, WorkerInfo> joiners = new LinkedHashMap<>();
    final Set<String> leavers = new LinkedHashSet<>();
    /** The leavers a {@link #replace} named; empty when the change is no replacement. */
    final Set<String> replacing = new LinkedHashSet<>();
    /** A replacement is scheduled only once this many joiners are in it (0: no such wait). */
    int awaitedJoiners;
    SwitchOrder order;
  }

  private final JobSpec spec;
  private final Ticker ticker;
  private final long allowanceNanos;
  private final String leaderId;
  private final Map<String, WorkerInfo> registered = new LinkedHashMap<>();
  private Topology topology = new Topology(0, new ArrayList<>());
  private final JobMeta meta;
  private final TreeMap<Long, StepTally> openSteps = new TreeMap<>();
  private final Map<String, Double> lastBatchSeconds = new LinkedHashMap<>();
  /** (nanos, samplesSeen) at each completed step, newest last. */
  private final Deque<long[]> completions = new ArrayDeque<>();
  private final Set<String> readyWorkers = new HashSet<>();
  /** Orders that added a worker, kept until its first report: a newcomer may ask after the switch. */
  private final Map<String, SwitchOrder> joinedBy = new LinkedHashMap<>();
  private Change change;
  /** Changes asked for while {@link #change} is scheduled. */
  private Change queued;
  /** The scheduled stop for a restart, if one was asked for. */
  private StopOrder stop;
  private long highestReported = -1;
  private int epochSize;
  private boolean handedOver;
  private Double firstLoss;
  private long firstCompletionNanos = -1;
  private long samplesAtFirstCompletion;
  private final StragglerDetector stragglers;
  private final Deque<String> events = new ArrayDeque<>();
  private final Recovery.Mode recoveryMode;
  private final FailureDetector detector;
  /** Workers declared failed, with why: refused from then on. */
  private final Map<String, String> fenced = new LinkedHashMap<>();
  private final Map<String, Long> lastReported = new HashMap<>();
  private PendingRecovery recovery;
  /** The last order decided, for survivors that ask again before their first report on it. */
  private RecoveryOrder lastRecovery;
  private final Set<String> awaitingFirstSync = new HashSet<>();
  private final Set<String> receivedOrder = new HashSet<>();
  /** Where consistent recovery goes back to: the newest checkpoint registered, else the start. */
  private String latestCheckpoint;
  private JobMeta latestCheckpointMeta;
  private CheckpointCheck checkpointCheck = CheckpointCheck.TRUSTING;
  private JobMeta initialMeta;
  /** Steps up to this one get the detector's grace. */
  private long graceUntilStep = GRACE_STEPS - 1;
  /** Members whose ZooKeeper presence node exists; null until the first look. */
  private Set<String> present;
  /** Grows whenever what {@link #record()} holds changes (ring, checkpoint, fenced workers). */
  private long recordVersion;

  /** A state with the default switch allowance and no known leader id (tests of formation). */
  public CoordinatorState(JobSpec spec, Ticker ticker) {
    this(spec, ticker, DEFAULT_SWITCH_ALLOWANCE, null);
  }

  /**
   * @param switchAllowance T_a: how far ahead (in time) a switch is scheduled
   * @param leaderId        the worker this state runs in; a change that removes it ends its lead
   */
  public CoordinatorState(JobSpec spec, Ticker ticker, Duration switchAllowance, String leaderId) {
    this.spec = spec;
    this.ticker = ticker;
    this.allowanceNanos = switchAllowance.toNanos();
    this.leaderId = leaderId;
    this.meta = new JobMeta(0, 0, spec.batchRule(), spec.batchSize(), spec.learningRate());
    meta.setSamplesSeen(0);
    this.stragglers = new StragglerDetector(spec.stragglerFactor(), spec.stragglerBatches(),
        spec.minWorkers());
    this.recoveryMode = spec.recovery().mode();
    this.detector = new FailureDetector(Duration.ofMillis(spec.recovery().syncTimeoutMs()));
    this.initialMeta = meta.deepCopy();
  }

  /**
   * The state of a job restarted from a checkpoint: the first ring forms as usual, and its first
   * step is {@code start.step}, at the sample cursor {@code start.samplesSeen}.
   */
  public static CoordinatorState restored(JobSpec spec, Ticker ticker, Duration switchAllowance,
      String leaderId, JobMeta start) {
    CoordinatorState s = new CoordinatorState(spec, ticker, switchAllowance, leaderId);
    s.meta.setStep(start.getStep());
    s.meta.setEpoch(start.getEpoch());
    s.meta.setSamplesSeen(start.isSetSamplesSeen() ? start.getSamplesSeen() : 0);
    if (start.isSetLastLoss()) {
      s.meta.setLastLoss(start.getLastLoss());
    }
    if (start.isSetFinishedChunks()) {
      s.meta.setFinishedChunks(new ArrayList<>(start.getFinishedChunks()));
    }
    s.highestReported = start.getStep() - 1;
    s.initialMeta = s.meta.deepCopy();
    s.graceUntilStep = start.getStep() + GRACE_STEPS - 1;
    return s;
  }

  /**
   * A successor's state after the leader died without handing over: rebuilt from what it
   * published in ZooKeeper. The dead leader is declared failed at once, so the survivors
   * recover (consistent: from the recorded checkpoint; approximate: from their own positions).
   * If the record is this worker's own (it lost and regained leadership), a recovery with
   * nobody failed brings every member back to one position. A record whose ring no longer holds
   * its leader was published by a leader that left gracefully ({@link #record()} after its
   * switch): the job goes on from it without a recovery.
   */
  public static CoordinatorState takeOver(JobSpec spec, Ticker ticker, Duration switchAllowance,
      String leaderId, LeaderRecord r) {
    CoordinatorState s = new CoordinatorState(spec, ticker, switchAllowance, leaderId);
    JobMeta m = r.getMeta();
    s.meta.setStep(m.getStep());
    s.meta.setEpoch(m.getEpoch());
    s.meta.setSamplesSeen(m.isSetSamplesSeen() ? m.getSamplesSeen() : 0);
    if (m.isSetFinishedChunks()) {
      s.meta.setFinishedChunks(new ArrayList<>(m.getFinishedChunks()));
    }
    if (m.isSetLastLoss()) {
      s.meta.setLastLoss(m.getLastLoss());
    }
    s.topology = r.getTopology().deepCopy();
    s.topology.getRing().forEach(w -> s.registered.put(w.getWorkerId(), w.deepCopy()));
    s.highestReported = s.meta.getStep() - 1;
    if (r.isSetInitialMeta()) {
      s.initialMeta = r.getInitialMeta().deepCopy();
    }
    if (r.isSetCheckpoint() && r.isSetCheckpointMeta()) {
      s.latestCheckpoint = r.getCheckpoint();
      s.latestCheckpointMeta = r.getCheckpointMeta().deepCopy();
    }
    if (r.isSetFenced()) {
      r.getFenced().forEach(id -> s.fenced.put(id, "declared failed under an earlier leader"));
    }
    if (r.getLeaderId().equals(leaderId)) {
      s.recovery = new PendingRecovery(ticker.nanos());
    } else if (!contains(s.topology, r.getLeaderId())) {
      // The leader left at a switch and published the ring after it: every member completed the
      // recorded step with the same model, so nothing is lost and nobody goes back (the hand-off
      // itself did not reach this worker before it was elected). Only the not yet scheduled
      // changes it held are lost; they are asked for again.
      LOG.warn("Taking over from leader {}, which left at a switch without handing the job to this worker;"
          + " going on from step {}", r.getLeaderId(), s.meta.getStep());
      s.graceUntilStep = s.meta.getStep() + GRACE_STEPS - 1;
    } else {
      s.declareFailed(r.getLeaderId(), "the leader's ZooKeeper session ended without a hand-over");
    }
    s.recordVersion++;
    return s;
  }

  /**
   * A successor that was handed the job also takes what only the published record holds: the
   * newest checkpoint, where the job started, and who was fenced.
   */
  public void adopt(LeaderRecord r) {
    if (r.isSetCheckpoint() && r.isSetCheckpointMeta() && r.getCheckpointMeta().getStep() <= meta.getStep()
        && (latestCheckpointMeta == null || r.getCheckpointMeta().getStep() >= latestCheckpointMeta.getStep())) {
      latestCheckpoint = r.getCheckpoint();
      latestCheckpointMeta = r.getCheckpointMeta().deepCopy();
    }
    if (r.isSetInitialMeta()) {
      initialMeta = r.getInitialMeta().deepCopy();
    }
    if (r.isSetFenced()) {
      r.getFenced().forEach(id -> fenced.putIfAbsent(id, "declared failed under an earlier leader"));
    }
    recordVersion++;
  }

  /** What a successor needs if this leader dies: see {@link #takeOver}. */
  public LeaderRecord record() {
    LeaderRecord r = new LeaderRecord(String.valueOf(leaderId), topology(), meta());
    if (latestCheckpoint != null) {
      r.setCheckpoint(latestCheckpoint);
      r.setCheckpointMeta(latestCheckpointMeta.deepCopy());
    }
    r.setInitialMeta(initialMeta.deepCopy());
    r.setFenced(new ArrayList<>(fenced.keySet()));
    return r;
  }

  public long recordVersion() {
    return recordVersion;
  }

  /** A successor's state, from what the previous leader handed over. */
  public static CoordinatorState resume(JobSpec spec, Ticker ticker, Duration switchAllowance,
      String leaderId, Handoff from) {
    CoordinatorState s = new CoordinatorState(spec, ticker, switchAllowance, leaderId);
    s.meta.setStep(from.meta().getStep());
    s.meta.setEpoch(from.meta().getEpoch());
    s.meta.setSamplesSeen(from.meta().getSamplesSeen());
    if (from.meta().isSetLastLoss()) {
      s.meta.setLastLoss(from.meta().getLastLoss());
    }
    if (from.meta().isSetFinishedChunks()) {
      s.meta.setFinishedChunks(new ArrayList<>(from.meta().getFinishedChunks()));
    }
    s.topology = from.topology().deepCopy();
    s.topology.getRing().forEach(w -> s.registered.put(w.getWorkerId(), w.deepCopy()));
    s.highestReported = s.meta.getStep() - 1;
    s.graceUntilStep = s.meta.getStep() + GRACE_STEPS - 1;
    s.stragglers.resume(from.stragglerRuns());
    from.pending().ifPresent(order -> {
      boolean scheduled = order.getAtStep() >= 0;
      Change c = new Change();
      for (WorkerInfo w : order.getTopology().getRing()) {
        if (order.isSetJoiners() && order.getJoiners().contains(w.getWorkerId())) {
          c.joiners.put(w.getWorkerId(), w.deepCopy());
          s.registered.put(w.getWorkerId(), w.deepCopy());
          if (scheduled) {
            s.readyWorkers.add(w.getWorkerId());
          }
        }
      }
      if (order.isSetLeavers()) {
        order.getLeavers().stream().filter(id -> contains(s.topology, id)).forEach(c.leavers::add);
      }
      if (!scheduled && order.isSetAwaitedJoiners()) {
        // A replacement the previous leader still waited on: keep waiting for the same newcomers.
        c.awaitedJoiners = order.getAwaitedJoiners();
        c.replacing.addAll(c.leavers);
      }
      if (scheduled) {
        c.order = order.deepCopy();
        c.order.setLeaderLeaves(leaderId != null && c.leavers.contains(leaderId));
      }
      s.change = c;
    });
    // A change the leaver held unscheduled (leaves asked for while its own switch was scheduled)
    // is due now; nothing else would schedule it until the next call, and its leavers' grace
    // may end first (the AM's containers then die, and their deaths are recovered from).
    s.maybeSchedule();
    return s;
  }

  /**
   * Records a worker. Registering again with the same id and address is harmless (a retried
   * call); the same id at another address is refused. Before the first ring the worker is one of
   * the initial members; afterwards it is a newcomer for the next switch, up to max-workers.
   */
  public Registration register(WorkerInfo worker) throws EdlError {
    requireLeading();
    requireText("workerId", worker.getWorkerId());
    requireText("host", worker.getHost());
    if (worker.getDataPort() <= 0 || worker.getDataPort() > 65535) {
      throw error("dataPort", Integer.toString(worker.getDataPort()), "not a TCP port");
    }
    requireNotFenced(worker.getWorkerId());
    WorkerInfo known = registered.get(worker.getWorkerId());
    if (known != null) {
      if (known.getHost().equals(worker.getHost()) && known.getDataPort() == worker.getDataPort()) {
        return registration(worker.getWorkerId());
      }
      throw error("workerId", worker.getWorkerId(), "already registered at " + known.getHost() + ":"
          + known.getDataPort() + ", now from " + worker.getHost() + ":" + worker.getDataPort());
    }
    if (stop != null) {
      throw error("workerId", worker.getWorkerId(), "the job stops for a restart after step "
          + stop.getAtStep() + "; start the worker in the restarted job");
    }
    if (topology.getVersion() == 0) {
      registered.put(worker.getWorkerId(), worker.deepCopy());
      if (registered.size() == spec.workers()) {
        List<WorkerInfo> ring = new ArrayList<>(registered.values());
        ring.sort(Comparator.comparing(WorkerInfo::getWorkerId));
        topology = new Topology(1, ring);
        recordVersion++;
      }
      return registration(worker.getWorkerId());
    }
    if (workersAfterChanges() + 1 > spec.maxWorkers()) {
      throw error("workerId", worker.getWorkerId(), "the job would exceed max-workers="
          + spec.maxWorkers() + " (" + workersAfterChanges() + " workers after the pending changes)");
    }
    registered.put(worker.getWorkerId(), worker.deepCopy());
    Change target = openChange();
    target.joiners.put(worker.getWorkerId(), worker.deepCopy());
    return registration(worker.getWorkerId());
  }

  /** A newcomer's execution context is prepared; the switch is scheduled once all are. */
  public Optional<SwitchOrder> ready(String workerId) throws EdlError {
    requireLeading();
    if (joinedBy.containsKey(workerId)) {
      return orderFor(workerId);
    }
    if (!isJoiner(change, workerId) && !isJoiner(queued, workerId)) {
      throw error("workerId", workerId, "is not a newcomer waiting for a switch");
    }
    readyWorkers.add(workerId);
    maybeSchedule();
    return orderFor(workerId);
  }

  /** The scheduled order that adds {@code workerId}, if there is one yet. */
  public Optional<SwitchOrder> orderFor(String workerId) {
    SwitchOrder applied = joinedBy.get(workerId);
    if (applied != null) {
      return Optional.of(applied.deepCopy());
    }
    if (change != null && change.order != null && change.joiners.containsKey(workerId)) {
      return Optional.of(change.order.deepCopy());
    }
    return Optional.empty();
  }

  /**
   * Asks {@code workerId} to leave at a future step. Merged into the pending change when that is
   * not scheduled yet (a migration: leave and join in one switch); otherwise queued for the next.
   *
   * @return the order as it stands; atStep is -1 while it waits for newcomers to be ready
   */
  public SwitchOrder leave(String workerId) throws EdlError {
    requireLeading();
    requireText("workerId", workerId);
    if (change != null && change.leavers.contains(workerId)) {
      return currentOrderView(change);
    }
    if (queued != null && queued.leavers.contains(workerId)) {
      return currentOrderView(queued);
    }
    if (!contains(topology, workerId)) {
      throw error("workerId", workerId, "is not a member of the running ring v" + topology.getVersion());
    }
    if (stop != null) {
      throw error("workerId", workerId, "the job stops for a restart after step " + stop.getAtStep()
          + "; size the restarted job instead");
    }
    if (workersAfterChanges() - 1 < 1) {
      throw error("workerId", workerId, "is the last worker of the job; it cannot leave");
    }
    Change target = openChange();
    target.leavers.add(workerId);
    maybeSchedule();
    return currentOrderView(target);
  }

  /**
   * Migration in one switch: {@code leavers} leave at the switch that admits the next
   * {@code joiners} newcomers, whose containers are launched after this call. The switch is
   * scheduled once that many joiners are in the change and ready (newcomers that registered
   * before are not counted); meanwhile the leavers stay ordinary members. Asking again with the
   * same leavers returns the change as it stands (a retried call).
   *
   * @return the order as it stands; atStep is -1 while it waits for the newcomers
   * @throws EdlError no leaver or joiner, a leaver not in the running ring or already leaving,
   *                  every member would leave (one must stay to send the model), another
   *                  replacement is pending, or the job stops for a restart
   */
  public SwitchOrder replace(List<String> leavers, int joiners) throws EdlError {
    requireLeading();
    String value = leavers == null ? "null" : String.join(",", leavers);
    if (leavers == null || leavers.isEmpty()) {
      throw error("leavers", value, "a replacement names at least one worker to leave");
    }
    Set<String> wanted = new LinkedHashSet<>();
    for (String id : leavers) {
      requireText("leavers", id);
      wanted.add(id);
    }
    for (Change c : new Change[] {change, queued}) {
      if (c != null && !c.replacing.isEmpty()) {
        if (c.replacing.equals(wanted)) {
          return currentOrderView(c);
        }
        throw error("leavers", value, "a replacement of " + c.replacing + " is already pending");
      }
    }
    if (joiners < 1) {
      throw error("joiners", Integer.toString(joiners),
          "a replacement admits at least one newcomer (leave removes without one)");
    }
    if (stop != null) {
      throw error("leavers", value, "the job stops for a restart after step " + stop.getAtStep()
          + "; size the restarted job instead");
    }
    for (String id : wanted) {
      if (!contains(topology, id)) {
        throw error("leavers", id, "is not a member of the running ring v" + topology.getVersion());
      }
      if ((change != null && change.leavers.contains(id)) || (queued != null && queued.leavers.contains(id))) {
        throw error("leavers", id, "is already leaving with a pending change");
      }
    }
    boolean someoneStays = topology.getRing().stream().map(WorkerInfo::getWorkerId)
        .anyMatch(id -> !wanted.contains(id) && !(change != null && change.leavers.contains(id))
            && !(queued != null && queued.leavers.contains(id)));
    if (!someoneStays) {
      throw error("leavers", value, "every worker of the ring would leave: one must stay to send"
          + " the model to the newcomers");
    }
    Change target = openChange();
    target.leavers.addAll(wanted);
    target.replacing.addAll(wanted);
    target.awaitedJoiners = target.joiners.size() + joiners;
    return currentOrderView(target);
  }

  /**
   * Withdraws the pending replacement of exactly {@code leavers} while its switch is not
   * scheduled: they stay members, and newcomers already in the change join on their own.
   *
   * @return false when no such replacement is pending (never asked, or already applied)
   * @throws EdlError its switch is already scheduled
   */
  public boolean cancelReplace(List<String> leavers) throws EdlError {
    requireLeading();
    Set<String> wanted = leavers == null ? Set.of() : new LinkedHashSet<>(leavers);
    for (Change c : new Change[] {change, queued}) {
      if (c == null || c.replacing.isEmpty() || !c.replacing.equals(wanted)) {
        continue;
      }
      if (c.order != null) {
        throw error("leavers", String.join(",", leavers), "their switch is already scheduled at step "
            + c.order.getAtStep());
      }
      c.leavers.removeAll(c.replacing);
      c.replacing.clear();
      c.awaitedJoiners = 0;
      if (c.joiners.isEmpty() && c.leavers.isEmpty()) {
        if (c == change) {
          change = null;
        } else {
          queued = null;
        }
      } else if (c == change) {
        maybeSchedule();
      }
      return true;
    }
    return false;
  }

  /**
   * Asks every worker to stop after a future step {@code t + k} (as a scale-in picks it), where
   * the leader checkpoints into {@code directory}. Asking again for the same directory returns
   * the same order. Refused before the first ring trains, while a scale change is pending (its
   * newcomers would wait for a switch that never comes) and when the job ends first.
   */
  public StopOrder stopForRestart(String directory) throws EdlError {
    requireLeading();
    requireText("directory", directory);
    if (stop != null) {
      if (!stop.getDirectory().equals(directory)) {
        throw error("directory", directory, "a stop for a restart into " + stop.getDirectory()
            + " is already scheduled after step " + stop.getAtStep());
      }
      return stop.deepCopy();
    }
    if (topology.getVersion() == 0) {
      throw error("directory", directory, "the job has not formed its first ring yet: nothing to checkpoint");
    }
    if (change != null) {
      throw error("directory", directory, "a change to topology v" + nextTopology(change).getVersion()
          + " is pending" + (change.order == null ? " (waiting for newcomers)" : " (at step "
          + change.order.getAtStep() + ")") + "; stop after it took effect");
    }
    long t = Math.max(highestReported, meta.getStep() - 1);
    long atStep = t + switchDelaySteps(allowanceNanos, meanBatchSeconds());
    if (atStep > spec.steps() - 1) {
      atStep = Math.max(t + 1, spec.steps() - 1);
    }
    if (atStep > spec.steps() - 1) {
      throw error("directory", directory, "the job ends with step " + (spec.steps() - 1)
          + " before a stop could take effect");
    }
    stop = new StopOrder(atStep, directory);
    return stop.deepCopy();
  }

  /** The scheduled stop for a restart, if any. */
  public Optional<StopOrder> stopOrder() {
    return stop == null ? Optional.empty() : Optional.of(stop.deepCopy());
  }

  public int registeredCount() {
    return registered.size();
  }

  /** A copy of the published (running) topology. */
  public Topology topology() {
    return topology.deepCopy();
  }

  /** The newest topology: the pending one when a change is on its way, else the running one. */
  public Topology latestTopology() {
    return change == null ? topology() : nextTopology(change);
  }

  public long topologyVersion() {
    return topology.getVersion();
  }

  /** A copy of the job meta-data: step is the number of completed steps. */
  public JobMeta meta() {
    return meta.deepCopy();
  }

  /** The scheduled switch, if any. */
  public Optional<SwitchOrder> scheduled() {
    return change == null || change.order == null ? Optional.empty() : Optional.of(change.order.deepCopy());
  }

  /** True once a switch removed the leader itself: its successor takes over from {@link #handoff()}. */
  public boolean handedOver() {
    return handedOver;
  }

  /**
   * The job for a successor. The pending change goes along: scheduled (its joiners were ready),
   * or not yet (atStep -1; its newcomers report ready again to the successor).
   */
  public Handoff handoff() {
    if (change == null) {
      return new Handoff(meta(), topology(), Optional.empty(), stragglers.runs());
    }
    if (change.order != null) {
      return new Handoff(meta(), topology(), scheduled(), stragglers.runs());
    }
    SwitchOrder unscheduled = currentOrderView(change);
    unscheduled.setTopology(nextTopology(change));
    return new Handoff(meta(), topology(), Optional.of(unscheduled), stragglers.runs());
  }

  /**
   * Records one worker's report for one batch. A step is complete when every member of the ring
   * that runs it reported; its loss is the sample-weighted mean of the members' losses. The
   * reply carries the pending topology and, to members of the running ring, the scheduled switch.
   */
  public SyncReply sync(SyncReport report) throws EdlError {
    requireLeading();
    String id = report.getWorkerId();
    long step = report.getStep();
    requireNotFenced(id);
    long now = ticker.nanos();
    checkFailures(now);
    if (recovery != null) {
      // The old ring is over: tallying this step could only be undone by the recovery.
      lastReported.merge(id, step, Math::max);
      SyncReply reply = new SyncReply();
      reply.setRecover(true);
      return reply;
    }
    Topology members = membersFor(step);
    if (!contains(members, id)) {
      throw error("workerId", id, "not a member of topology version " + members.getVersion()
          + " that runs step " + step);
    }
    if (step < meta.getStep()) {
      throw error("step", Long.toString(step), "already completed (job is at step " + meta.getStep() + ")");
    }
    if (stop != null && step > stop.getAtStep()) {
      throw error("step", Long.toString(step), "the job stopped for a restart after step " + stop.getAtStep());
    }
    if (report.getSamples() < 0 || Double.isNaN(report.getBatchSeconds())) {
      throw error("samples", Integer.toString(report.getSamples()), "a report needs samples >= 0 and a batch time");
    }
    StepTally tally = openSteps.computeIfAbsent(step, s -> new StepTally(now));
    if (report.isSetBatchStart()) {
      if (tally.batchStart >= 0 && tally.batchStart != report.getBatchStart()) {
        throw error("batchStart", Long.toString(report.getBatchStart()), "step " + step
            + " started at sample position " + tally.batchStart + " for the other members");
      }
      tally.batchStart = report.getBatchStart();
    }
    if (report.isSetEpochSize() && report.getEpochSize() > 0) {
      epochSize = report.getEpochSize();
    }
    lastBatchSeconds.put(id, report.getBatchSeconds());
    lastReported.merge(id, step, Math::max);
    awaitingFirstSync.remove(id);
    receivedOrder.remove(id);
    joinedBy.remove(id);
    highestReported = Math.max(highestReported, step);
    tally.add(id, report);
    // Taken before completing steps: this report may complete the switch step itself, and its
    // sender still has to learn that it switches there.
    SwitchOrder scheduled = change == null ? null : change.order;
    Topology pending = change == null ? null : nextTopology(change);
    completeReadySteps();
    SyncReply reply = new SyncReply();
    if (pending != null) {
      reply.setPendingTopology(pending);
    }
    if (scheduled != null && step <= scheduled.getAtStep()) {
      reply.setSwitchOrder(scheduled.deepCopy());
    }
    if (stop != null) {
      reply.setStopOrder(stop.deepCopy());
    }
    return reply;
  }

  /** True when every member reported {@code step}. */
  public boolean isComplete(long step) {
    return step < meta.getStep();
  }

  public Optional<Double> firstLoss() {
    return Optional.ofNullable(firstLoss);
  }

  /** The latest batch time each worker reported, for straggler detection later. */
  public Map<String, Double> lastBatchSeconds() {
    return Map.copyOf(lastBatchSeconds);
  }

  /** Samples per second over the last few completed steps; 0 before two steps completed. */
  public double recentSamplesPerSecond() {
    if (completions.size() < 2) {
      return 0;
    }
    long[] oldest = completions.peekFirst();
    long[] newest = completions.peekLast();
    return rate(newest[1] - oldest[1], newest[0] - oldest[0]);
  }

  /** Samples per second from the first completed step to the last. */
  public double overallSamplesPerSecond() {
    if (completions.isEmpty()) {
      return 0;
    }
    long[] newest = completions.peekLast();
    return rate(newest[1] - samplesAtFirstCompletion, newest[0] - firstCompletionNanos);
  }

  /** What the leader reports to the ApplicationMaster. */
  public JobProgress progress() {
    JobProgress p = new JobProgress(meta.getStep(), spec.steps(),
        meta.isSetLastLoss() ? meta.getLastLoss() : Double.NaN, recentSamplesPerSecond(),
        topology.getRingSize());
    p.setEpoch(meta.getEpoch());
    p.setSamplesSeen(meta.getSamplesSeen());
    if (!completions.isEmpty()) {
      p.setLeaderSeconds(completions.peekLast()[0] / 1e9);
    }
    if (firstLoss != null) {
      p.setFirstLoss(firstLoss);
    }
    if (!events.isEmpty()) {
      p.setEvents(new ArrayList<>(events));
    }
    return p;
  }

  /** The leader's recent events (stragglers removed), oldest first. */
  public List<String> events() {
    return List.copyOf(events);
  }

  /** k = ceil(T_a / T_b), at least 1; T_b is the mean of the members' latest batch times. */
  static long switchDelaySteps(long allowanceNanos, double batchSeconds) {
    if (!(batchSeconds > 0)) {
      return 1;
    }
    double k = Math.ceil(allowanceNanos / 1e9 / batchSeconds);
    return Math.max(1, (long) Math.min(k, Integer.MAX_VALUE));
  }

  private Registration registration(String workerId) {
    if (contains(topology, workerId) || topology.getVersion() == 0) {
      return new Registration(topology(), meta());
    }
    Registration r = new Registration(latestTopology(), meta());
    r.setPending(true);
    return r;
  }

  private void maybeSchedule() {
    if (change == null || change.order != null) {
      return;
    }
    if (change.joiners.size() < change.awaitedJoiners || !readyWorkers.containsAll(change.joiners.keySet())) {
      return;
    }
    Topology next = nextTopology(change);
    long t = Math.max(highestReported, meta.getStep() - 1);
    // Never later than the job's last step, or the newcomers would wait for a switch that the
    // job ends before; never earlier than the step after the last one anybody finished.
    long atStep = t + switchDelaySteps(allowanceNanos, meanBatchSeconds());
    if (atStep > spec.steps() - 1) {
      atStep = Math.max(t + 1, spec.steps() - 1);
    }
    SwitchOrder order = new SwitchOrder(next.getVersion(), atStep);
    order.setTopology(next);
    order.setJoiners(new ArrayList<>(change.joiners.keySet()));
    order.setLeavers(new ArrayList<>(change.leavers));
    if (!change.joiners.isEmpty()) {
      // The first survivor sends the model: it is a member before and after the switch.
      next.getRing().stream().map(WorkerInfo::getWorkerId).filter(id -> contains(topology, id))
          .findFirst().ifPresent(order::setBroadcasterId);
    }
    order.setLeaderLeaves(leaderId != null && change.leavers.contains(leaderId));
    change.order = order;
  }

  private double meanBatchSeconds() {
    double sum = 0;
    int n = 0;
    for (WorkerInfo w : topology.getRing()) {
      Double s = lastBatchSeconds.get(w.getWorkerId());
      if (s != null) {
        sum += s;
        n++;
      }
    }
    return n == 0 ? 0 : sum / n;
  }

  /** The change new requests go into: the pending one unless it is already scheduled. */
  private Change openChange() {
    if (change == null) {
      change = new Change();
      return change;
    }
    if (change.order == null) {
      return change;
    }
    if (queued == null) {
      queued = new Change();
    }
    return queued;
  }

  private int workersAfterChanges() {
    int n = topology.getRingSize();
    for (Change c : new Change[] {change, queued}) {
      if (c != null) {
        n += c.joiners.size() - c.leavers.size();
      }
    }
    return n;
  }

  private Topology nextTopology(Change c) {
    if (c.order != null) {
      return c.order.getTopology().deepCopy();
    }
    List<WorkerInfo> ring = new ArrayList<>();
    for (WorkerInfo w : topology.getRing()) {
      if (!c.leavers.contains(w.getWorkerId())) {
        ring.add(w.deepCopy());
      }
    }
    c.joiners.values().stream().sorted(Comparator.comparing(WorkerInfo::getWorkerId))
        .forEach(w -> ring.add(w.deepCopy()));
    return new Topology(topology.getVersion() + 1, ring);
  }

  private SwitchOrder currentOrderView(Change c) {
    if (c.order != null) {
      return c.order.deepCopy();
    }
    Topology next = nextTopology(c);
    SwitchOrder o = new SwitchOrder(c == change ? next.getVersion() : next.getVersion() + 1, -1);
    o.setLeavers(new ArrayList<>(c.leavers));
    o.setJoiners(new ArrayList<>(c.joiners.keySet()));
    if (c.awaitedJoiners > 0) {
      o.setAwaitedJoiners(c.awaitedJoiners);
    }
    return o;
  }

  private Topology membersFor(long step) {
    if (change != null && change.order != null && step > change.order.getAtStep()) {
      return change.order.getTopology();
    }
    return topology;
  }

  private void completeReadySteps() {
    while (!openSteps.isEmpty() && !handedOver) {
      Map.Entry<Long, StepTally> first = openSteps.firstEntry();
      // Steps complete in order: a later step cannot finish before an earlier one.
      if (first.getKey() != meta.getStep()
          || first.getValue().reporters.size() < membersFor(first.getKey()).getRingSize()) {
        return;
      }
      openSteps.pollFirstEntry();
      StepTally t = first.getValue();
      double loss = t.samples == 0 ? Double.NaN : t.weightedLoss / t.samples;
      meta.setStep(meta.getStep() + 1);
      meta.setLastLoss(loss);
      meta.setSamplesSeen(meta.getSamplesSeen() + t.samples);
      recordDataProgress();
      if (firstLoss == null) {
        firstLoss = loss;
      }
      long now = ticker.nanos();
      if (firstCompletionNanos < 0) {
        firstCompletionNanos = now;
        samplesAtFirstCompletion = meta.getSamplesSeen();
      }
      completions.addLast(new long[] {now, meta.getSamplesSeen()});
      detector.batchCompleted(t.slowestSeconds);
      if (completions.size() > RATE_WINDOW) {
        completions.pollFirst();
      }
      if (change != null && change.order != null && change.order.getAtStep() == first.getKey()) {
        applySwitch();
      }
      if (!handedOver) {
        removeStraggler(first.getKey(), t.computeSeconds);
      }
    }
  }

  /** Feeds the completed step to the detector and starts the removal of a straggler it names. */
  private void removeStraggler(long step, Map<String, Double> computeSeconds) {
    boolean inFlight = change != null || queued != null || stop != null;
    Optional<StragglerDetector.Straggler> found = stragglers.step(computeSeconds, inFlight);
    if (found.isEmpty()) {
      return;
    }
    StragglerDetector.Straggler s = found.get();
    try {
      SwitchOrder order = leave(s.workerId());
      String event = "step " + step + ": removing " + s.describe() + (order.getAtStep() < 0 ? ""
          : "; it leaves after step " + order.getAtStep());
      LOG.warn("{}", event);
      event(event);
    } catch (EdlError e) {
      // Not removable now (the job is at its end, for one): it may be named again later.
      stragglers.release(s.workerId());
      LOG.warn("Not removing {}: {}", s.describe(), e.getMessage());
    }
  }

  /**
   * Progress through the epoch's sample order as the set of finished chunks of {@code batchSize}
   * positions: the samples before the cursor ({@code samplesSeen}) were each trained exactly once,
   * whatever the parallelism was when they were.
   */
  private void recordDataProgress() {
    if (epochSize <= 0) {
      return;
    }
    long cursor = meta.getSamplesSeen();
    meta.setEpoch((int) (cursor / epochSize));
    int chunk = Math.max(1, spec.batchSize());
    int done = (int) ((cursor % epochSize) / chunk);
    List<Integer> finished = new ArrayList<>(done);
    for (int i = 0; i < done; i++) {
      finished.add(i);
    }
    meta.setFinishedChunks(finished);
  }

  private void applySwitch() {
    SwitchOrder order = change.order;
    topology = order.getTopology().deepCopy();
    recordVersion++;
    // The first batches on the new ring include the broadcast and new connections.
    graceUntilStep = Math.max(graceUntilStep, order.getAtStep() + GRACE_STEPS);
    for (String leaver : order.getLeavers()) {
      registered.remove(leaver);
      lastBatchSeconds.remove(leaver);
    }
    readyWorkers.removeAll(order.getJoiners());
    order.getJoiners().forEach(id -> joinedBy.put(id, order));
    change = queued;
    queued = null;
    if (change != null) {
      // A queued change was built against the ring that just ended: drop leavers already gone.
      change.leavers.removeIf(id -> !contains(topology, id));
    }
    if (order.isLeaderLeaves()) {
      // From here on the successor answers; reports sent here now would be lost.
      handedOver = true;
      return;
    }
    maybeSchedule();
  }

  private void requireNotFenced(String workerId) throws EdlError {
    String why = fenced.get(workerId);
    if (why != null) {
      throw error("workerId", workerId, FENCED + " (" + why + ") and is fenced out of the job; it exits"
          + " and may rejoin under a new worker id");
    }
  }

  // ---------------------------------------------------------------- failures and recovery

  /** Whether a failure is being recovered from (the old ring must not be waited for). */
  public boolean recoveryPending() {
    return recovery != null;
  }

  /** Workers declared failed so far, with why. */
  public Map<String, String> fenced() {
    return Map.copyOf(fenced);
  }

  /** The last recovery decided, if any. */
  public Optional<RecoveryOrder> lastRecovery() {
    return lastRecovery == null ? Optional.empty() : Optional.of(lastRecovery.deepCopy());
  }

  /** A checkpoint of the job at {@code at}: consistent recovery goes back to the newest one. */
  public void checkpointWritten(String path, JobMeta at) {
    // One written before a recovery that went back past it belongs to a timeline that is gone.
    if (at.getStep() > meta.getStep() && recovery == null) {
      LOG.info("Ignoring checkpoint {} at step {}: the job is at step {}", path, at.getStep(), meta.getStep());
      return;
    }
    if (latestCheckpointMeta == null || at.getStep() >= latestCheckpointMeta.getStep()) {
      latestCheckpoint = path;
      latestCheckpointMeta = at.deepCopy();
      recordVersion++;
    }
  }

  /**
   * The workers whose ZooKeeper presence node exists now. A member of the ring without one lost
   * its session (died, or was cut off long enough): it is declared failed, unless it already
   * reported its last step (it finished, left or stopped and closed its client).
   */
  public void presence(Set<String> now) {
    present = Set.copyOf(now);
    if (topology.getVersion() == 0) {
      return;
    }
    for (WorkerInfo w : topology.getRing()) {
      String id = w.getWorkerId();
      if (!present.contains(id) && !id.equals(leaderId) && !fenced.containsKey(id) && !departing(id)) {
        declareFailed(id, "its ZooKeeper session ended");
      }
    }
  }

  /** Applies the timing rules; called on every sync and recovery request, and by the leader's timer. */
  public void checkFailures(long now) {
    if (topology.getVersion() == 0 || handedOver) {
      return;
    }
    if (recovery == null) {
      Map.Entry<Long, StepTally> open = openSteps.firstEntry();
      if (open == null || open.getKey() != meta.getStep()) {
        return;
      }
      Set<String> missed = detector.missedSync(candidates(membersFor(open.getKey())), open.getValue().reporters,
          open.getValue().firstNanos, open.getKey() <= graceUntilStep, now);
      for (String id : missed) {
        declareFailed(id, "missed the sync of step " + open.getKey() + " by more than "
            + detector.timeoutNanos(open.getKey() <= graceUntilStep) / 1_000_000 + " ms");
      }
    } else {
      Set<String> silent = detector.silentInRecovery(candidates(topology), recovery.asked.keySet(),
          recovery.sinceNanos, now);
      for (String id : silent) {
        declareFailed(id, "silent for " + detector.timeoutNanos(false) / 1_000_000 + " ms while a recovery was asked for");
      }
    }
  }

  /**
   * A member asks how to go on after its all-reduce or a leader call failed, or a sync reply
   * said recover. {@code lastCompleted} is the last step its model holds ({@link #MODEL_LOST}
   * when a broadcast broke half way); {@code nextBatchStart} the sample position after it.
   *
   * @return the order once every survivor asked; empty while it is not decided
   */
  public Optional<RecoveryOrder> requestRecovery(String workerId, long lastCompleted, long nextBatchStart)
      throws EdlError {
    requireLeading();
    requireNotFenced(workerId);
    long now = ticker.nanos();
    if (recovery == null && lastRecovery != null && awaitingFirstSync.contains(workerId)) {
      if (!receivedOrder.contains(workerId)) {
        receivedOrder.add(workerId);
        return Optional.of(lastRecovery.deepCopy());
      }
      // It had the order and asks again: carrying it out failed (a survivor died meanwhile).
      LOG.warn("{} could not carry out recovery v{}; recovering again", workerId, lastRecovery.getTopologyVersion());
    }
    if (!contains(topology, workerId)) {
      throw error("workerId", workerId, "is not a member of the running ring v" + topology.getVersion());
    }
    if (recovery == null) {
      recovery = new PendingRecovery(now);
      LOG.warn("{} asks for a recovery after step {}", workerId, lastCompleted);
    }
    recovery.asked.put(workerId, new long[] {lastCompleted, nextBatchStart});
    checkFailures(now);
    if (recovery == null) {
      // Declaring the silent ones failed decided it.
      return decided(workerId);
    }
    return decideIfAllAsked(workerId);
  }

  private Optional<RecoveryOrder> decideIfAllAsked(String asking) {
    if (recovery == null) {
      return Optional.empty();
    }
    List<WorkerInfo> survivors = new ArrayList<>();
    for (WorkerInfo w : topology.getRing()) {
      if (fenced.containsKey(w.getWorkerId())) {
        continue;
      }
      if (!recovery.asked.containsKey(w.getWorkerId())) {
        return Optional.empty();
      }
      survivors.add(w.deepCopy());
    }
    if (survivors.isEmpty()) {
      return Optional.empty();
    }
    decide(survivors);
    return asking == null ? Optional.empty() : decided(asking);
  }

  private Optional<RecoveryOrder> decided(String asking) {
    if (lastRecovery == null || !contains(lastRecovery.getTopology(), asking)) {
      return Optional.empty();
    }
    receivedOrder.add(asking);
    return Optional.of(lastRecovery.deepCopy());
  }

  /** The order for the survivors; the meta-data and ring are set to it here. */
  private RecoveryOrder decide(List<WorkerInfo> survivors) {
    PendingRecovery r = recovery;
    Topology next = new Topology(topology.getVersion() + 1, survivors);
    RecoveryOrder o = new RecoveryOrder(next.getVersion());
    o.setTopology(next);
    o.setFailed(new ArrayList<>(r.failed.keySet()));
    String source = null;
    long sourceCompleted = MODEL_LOST;
    if (recoveryMode == Recovery.Mode.APPROXIMATE) {
      for (WorkerInfo w : survivors) {
        long completed = r.asked.get(w.getWorkerId())[0];
        if (completed != MODEL_LOST && (source == null || completed > sourceCompleted)) {
          source = w.getWorkerId();
          sourceCompleted = completed;
        }
      }
    }
    long wasAt = meta.getStep();
    if (source != null) {
      o.setMode(RecoveryMode.APPROXIMATE);
      o.setSourceId(source);
      o.setNextStep(sourceCompleted + 1);
      o.setBatchStart(r.asked.get(source)[1]);
      meta.setStep(o.getNextStep());
      meta.setSamplesSeen(o.getBatchStart());
      recordDataProgress();
    } else {
      // Consistent, or approximate with no model left intact: back to the newest checkpoint.
      o.setMode(RecoveryMode.CONSISTENT);
      useUsableCheckpoint(wasAt);
      JobMeta from = latestCheckpointMeta != null ? latestCheckpointMeta : initialMeta;
      if (latestCheckpoint != null) {
        o.setCheckpoint(latestCheckpoint);
      }
      o.setNextStep(from.getStep());
      o.setBatchStart(from.isSetSamplesSeen() ? from.getSamplesSeen() : 0);
      meta.setStep(from.getStep());
      meta.setEpoch(from.getEpoch());
      meta.setSamplesSeen(o.getBatchStart());
      meta.setFinishedChunks(from.isSetFinishedChunks() ? new ArrayList<>(from.getFinishedChunks()) : new ArrayList<>());
      if (from.isSetLastLoss()) {
        meta.setLastLoss(from.getLastLoss());
      }
    }
    topology = next;
    recordVersion++;
    for (String id : r.failed.keySet()) {
      registered.remove(id);
      lastBatchSeconds.remove(id);
      stragglers.release(id);
    }
    openSteps.clear();
    highestReported = meta.getStep() - 1;
    graceUntilStep = meta.getStep() + GRACE_STEPS - 1;
    unscheduleChanges(r.failed.keySet());
    lastRecovery = o;
    awaitingFirstSync.clear();
    receivedOrder.clear();
    survivors.forEach(w -> awaitingFirstSync.add(w.getWorkerId()));
    recovery = null;
    event("step " + wasAt + ": " + r.failed.entrySet().stream().map(e -> e.getKey() + " failed (" + e.getValue() + ")")
        .reduce((a, b) -> a + ", " + b).orElse("a recovery was asked for") + "; " + o.getMode().name().toLowerCase()
        + " recovery to topology v" + next.getVersion() + " with " + survivors.size() + " workers from step "
        + o.getNextStep() + (o.isSetCheckpoint() ? " (checkpoint " + o.getCheckpoint() + ")"
        : o.isSetSourceId() ? " (model from " + o.getSourceId() + ")" : " (initial state)"));
    maybeSchedule();
    return o;
  }

  /** The newest checkpoint, unless it was damaged since it was written: then the newest older one that is not. */
  private void useUsableCheckpoint(long wasAt) {
    if (latestCheckpoint == null) {
      return;
    }
    Optional<CheckpointCheck.Usable> usable = checkpointCheck.usable(latestCheckpoint, latestCheckpointMeta.deepCopy());
    if (usable.isPresent() && usable.get().path().equals(latestCheckpoint)) {
      return;
    }
    String instead = usable.map(u -> "checkpoint " + u.path() + " (step " + u.meta().getStep() + ")")
        .orElse("the initial state");
    LOG.warn("Checkpoint {} does not verify any more; recovery goes back to {}", latestCheckpoint, instead);
    event("step " + wasAt + ": checkpoint " + latestCheckpoint + " does not verify; recovery goes back to " + instead);
    latestCheckpoint = usable.map(CheckpointCheck.Usable::path).orElse(null);
    latestCheckpointMeta = usable.map(u -> u.meta().deepCopy()).orElse(null);
    recordVersion++;
  }

  /** How a consistent recovery checks the checkpoint before ordering it; {@link CheckpointCheck#TRUSTING} until set. */
  public void checkpointCheck(CheckpointCheck check) {
    checkpointCheck = check;
  }

  /** A change scheduled on the old ring cannot happen there: it waits for the next switch. */
  private void unscheduleChanges(Set<String> failed) {
    for (Change c : new Change[] {change, queued}) {
      if (c == null) {
        continue;
      }
      c.order = null;
      failed.forEach(c.joiners::remove);
      c.leavers.removeIf(id -> failed.contains(id) || !contains(topology, id));
      c.replacing.removeAll(failed);
    }
    if (change != null && change.joiners.isEmpty() && change.leavers.isEmpty() && change.awaitedJoiners == 0) {
      change = null;
    }
    if (change == null) {
      change = queued;
      queued = null;
    }
  }

  private void declareFailed(String id, String why) {
    if (fenced.containsKey(id) || id.equals(leaderId)) {
      return;
    }
    if (recovery == null) {
      recovery = new PendingRecovery(ticker.nanos());
    }
    recovery.failed.put(id, why);
    recovery.asked.remove(id);
    fenced.put(id, why);
    recordVersion++;
    LOG.warn("{} declared failed at step {}: {}; {} recovery", id, meta.getStep(), why,
        recoveryMode.name().toLowerCase());
    decideIfAllAsked(null);
  }

  /** Members the detector may name: never the leader itself (it cannot miss its own sync). */
  private List<String> candidates(Topology t) {
    List<String> ids = new ArrayList<>();
    for (WorkerInfo w : t.getRing()) {
      if (!w.getWorkerId().equals(leaderId) && !fenced.containsKey(w.getWorkerId())) {
        ids.add(w.getWorkerId());
      }
    }
    return ids;
  }

  /** Already reported its last step: the end of the job, a stop, or its own departure. */
  private boolean departing(String id) {
    Long last = lastReported.get(id);
    if (last == null) {
      return false;
    }
    long finalStep = spec.steps() - 1;
    if (stop != null) {
      finalStep = Math.min(finalStep, stop.getAtStep());
    }
    if (change != null && change.order != null && change.order.getLeavers().contains(id)) {
      finalStep = Math.min(finalStep, change.order.getAtStep());
    }
    return last >= finalStep;
  }

  private void event(String event) {
    events.addLast(event);
    while (events.size() > MAX_EVENTS) {
      events.pollFirst();
    }
  }

  private void requireLeading() throws EdlError {
    if (handedOver) {
      throw error("coordinator", String.valueOf(leaderId), "is not the leader any more (handed over)");
    }
  }

  private static boolean isJoiner(Change c, String id) {
    return c != null && c.joiners.containsKey(id);
  }

  /** Whether {@code workerId} is in {@code t}'s ring. */
  public static boolean contains(Topology t, String workerId) {
    for (WorkerInfo w : t.getRing()) {
      if (w.getWorkerId().equals(workerId)) {
        return true;
      }
    }
    return false;
  }

  private static double rate(long samples, long nanos) {
    return nanos <= 0 ? 0 : samples * 1e9 / nanos;
  }

  private static void requireText(String field, String value) throws EdlError {
    if (value == null || value.isBlank()) {
      throw error(field, String.valueOf(value), "must not be empty");
    }
  }

  static EdlError error(String field, String value, String problem) {
    EdlError e = new EdlError(field + "=" + value + ": " + problem);
    e.setField(field);
    e.setValue(value);
    return e;
  }

  /** The reports for one step so far. */
  private static final class StepTally {
    final Set<String> reporters = new HashSet<>();
    final Map<String, Double> computeSeconds = new LinkedHashMap<>();
    final long firstNanos;
    double weightedLoss;
    long samples;
    long batchStart = -1;
    double slowestSeconds;

    StepTally(long firstNanos) {
      this.firstNanos = firstNanos;
    }

    void add(String id, SyncReport r) {
      if (reporters.add(id)) {
        slowestSeconds = Math.max(slowestSeconds, r.getBatchSeconds());
        computeSeconds.put(id, r.isSetComputeSeconds() ? r.getComputeSeconds() : r.getBatchSeconds());
        weightedLoss += r.getLoss() * r.getSamples();
        samples += r.getSamples();
      }
    }
  }
}
