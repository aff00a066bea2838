package org.edl.worker.coord;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.edl.job.JobSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's state machine for one leadership (one leader epoch): every call checks the
 * {@link Phase} and every phase change goes through {@link Lifecycle} along the transitions
 * {@link Phase} lists. The parts each own one thing: {@link ChangeSchedule} the ring and its
 * changes, {@link StepLedger} the steps and the job position, {@link FailureRecovery} failures
 * and recovery orders, {@link Succession} where a successor starts. Everything here is values
 * (records) and decisions: no Thrift, socket, lock or file. Not thread-safe: only the
 * {@link Leadership}'s loop thread calls it. Time comes from an injected {@link Ticker}.
 *
 * <p>Every decision that changes the job (a member declared failed, a switch or stop
 * scheduled, a recovery ordered) first asks the {@link EpochGuard} whether this leadership is
 * still the newest; when it is not, the coordinator is fenced and decides nothing.
 */
public final class CoordinatorState {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorState.class);
  /** Events kept for the status; older ones are in the leader's log. */
  static final int MAX_EVENTS = 10;
  public static final Duration DEFAULT_SWITCH_ALLOWANCE = Duration.ofMillis(500);
  /** In the refusal of a worker declared failed: {@link org.edl.worker.coord.rpc.CoordinatorClient#isFenced} looks for it. */
  public static final String FENCED = "was declared failed";
  /** Steps at the start of a ring that get the detector's grace (connections, JIT, broadcast). */
  static final int GRACE_STEPS = 3;
  /** A recovering worker whose model was lost half way (a broadcast that broke) asks with this. */
  public static final long MODEL_LOST = FailureRecovery.MODEL_LOST;
  /** How long a newcomer that registers during a recovery waits before it asks again. */
  static final int RETRY_MS = 200;
  /**
   * A gap this long between two ticks means the leader itself did not run (the leader loop's tick
   * ticks ten times a second): it was paused, and judges nobody by that time.
   */
  public static final Duration PAUSE = Duration.ofSeconds(2);

  private final JobSpec spec;
  private final Ticker ticker;
  private final long allowanceNanos;
  private final String leaderId;
  private final long leaderEpoch;
  private final Lifecycle lifecycle;
  private final EpochGuard guard;
  private final long pauseNanos;
  private final java.util.function.DoubleSupplier joinLagSeconds;
  final ChangeSchedule changes;
  final StepLedger ledger;
  final FailureRecovery failures;
  final StragglerDetector stragglers;
  /** When the first ring may form with fewer than every worker asked for. */
  private final FirstRingGathering gathering;
  private StopPlan stop;
  private final Deque<String> events = new ArrayDeque<>();
  private long graceUntilStep;
  private Set<String> present;
  private long recordVersion;
  private JobOutput output;
  /** Where the stop for a restart checkpointed the job; null until it did. */
  private String stoppedInto;
  private final Set<String> toldDone = new HashSet<>();
  private long lastTickNanos = Long.MIN_VALUE;

  CoordinatorState(JobSpec spec, Ticker ticker, CoordinatorSettings settings, String leaderId, long leaderEpoch,
      Lifecycle lifecycle, ChangeSchedule changes, JobPosition position, JobPosition initial, double firstLoss) {
    this.spec = spec;
    this.ticker = ticker;
    this.allowanceNanos = settings.switchAllowance().toNanos();
    this.joinLagSeconds = settings.joinLagSeconds();
    this.leaderId = leaderId;
    this.leaderEpoch = leaderEpoch;
    this.lifecycle = lifecycle;
    this.guard = settings.guard();
    this.pauseNanos = settings.pauseAfter().isZero() ? Long.MAX_VALUE : settings.pauseAfter().toNanos();
    this.changes = changes;
    this.ledger = new StepLedger(position, spec.training().batchSize(), firstLoss);
    this.failures = new FailureRecovery(spec.recovery().mode(),
        new FailureDetector(Duration.ofMillis(spec.recovery().syncTimeoutMs())), initial);
    failures.checkpointCheck(settings.checkpointCheck());
    this.gathering = new FirstRingGathering(spec.scale());
    this.stragglers = new StragglerDetector(spec.stragglers().factor(), spec.stragglers().batches(),
        spec.scale().minWorkers());
    this.graceUntilStep = position.step() + GRACE_STEPS - 1;
  }

  /** A state leading a fresh job (tests of the decisions): leader unknown, epoch 1, nothing guarded. */
  public CoordinatorState(JobSpec spec, Ticker ticker) {
    this(spec, ticker, CoordinatorSettings.DEFAULT, null, 1, new Lifecycle("test"),
        new ChangeSchedule(null, spec.scale().workers(), spec.scale().maxWorkers(), spec.training().steps() - 1),
            JobPosition.START,
        JobPosition.START, Double.NaN);
    lifecycle.move(Phase.CANDIDATE, Phase.FORMING);
  }

  /**
   * Leads a job that has no ring yet: from step 0, or from {@code restoredFrom} (a job restarted
   * from a checkpoint, whose first ring has {@code firstRingSize} workers).
   */
  public static CoordinatorState forming(JobSpec spec, Ticker ticker, CoordinatorSettings settings, String leaderId,
      long leaderEpoch, Lifecycle lifecycle, Optional<JobPosition> restoredFrom) {
    JobPosition start = restoredFrom.orElse(JobPosition.START);
    CoordinatorState s = new CoordinatorState(spec, ticker, settings, leaderId, leaderEpoch, lifecycle,
        new ChangeSchedule(leaderId, spec.scale().workers(), spec.scale().maxWorkers(), spec.training().steps() - 1),
            start, start,
        Double.NaN);
    lifecycle.move(Phase.CANDIDATE, Phase.FORMING);
    return s;
  }

  // ------------------------------------------------------------------ views

  public Phase phase() {
    return lifecycle.phase();
  }

  public long leaderEpoch() {
    return leaderEpoch;
  }

  String leaderId() {
    return leaderId;
  }

  JobSpec spec() {
    return spec;
  }

  /** The running ring. */
  public MemberRing ring() {
    return changes.ring();
  }

  /** The newest ring: the next one when a change is on its way. */
  public MemberRing latestRing() {
    return changes.latest();
  }

  public JobPosition position() {
    return ledger.position();
  }

  public int registeredCount() {
    return changes.registeredCount();
  }

  public Optional<SwitchPlan> scheduled() {
    return changes.scheduled();
  }

  public Optional<StopPlan> stopPlan() {
    return Optional.ofNullable(stop);
  }

  public boolean handedOver() {
    return phase() == Phase.HANDED_OVER;
  }

  public boolean recoveryPending() {
    return phase() == Phase.RECOVERING;
  }

  public Optional<RecoveryPlan> lastRecovery() {
    return failures.last();
  }

  public Map<String, String> fenced() {
    return failures.fenced();
  }

  public List<String> events() {
    return List.copyOf(events);
  }

  public Optional<JobOutput> output() {
    return Optional.ofNullable(output);
  }

  /** True when every member reported {@code step}. */
  public boolean isComplete(long step) {
    return ledger.isComplete(step);
  }

  public Optional<Double> firstLoss() {
    double f = ledger.firstLoss();
    return Double.isNaN(f) ? Optional.empty() : Optional.of(f);
  }

  public Map<String, Double> lastBatchSeconds() {
    return ledger.lastBatchSeconds();
  }

  public double recentSamplesPerSecond() {
    return ledger.recentSamplesPerSecond();
  }

  public double overallSamplesPerSecond() {
    return ledger.overallSamplesPerSecond();
  }

  /** Grows whenever what {@link #record()} holds changes: {@link Leadership} publishes it then. */
  public long recordVersion() {
    return recordVersion;
  }

  // ------------------------------------------------------------------ membership

  /**
   * Records a worker: one of the first ring while it forms, a newcomer for the next switch after.
   * During a recovery (or once the job has trained its last step) nothing is registered and the
   * worker is told to ask again: it is not refused, so it does not count as a failed worker.
   */
  public Admission register(Member m) throws Refused {
    requireLeading();
    requireText("workerId", m.id());
    requireText("host", m.host());
    if (m.dataPort() <= 0 || m.dataPort() > 65535) {
      throw Refused.invalid("dataPort", Integer.toString(m.dataPort()), "not a TCP port");
    }
    failures.requireNotFenced(m.id());
    Phase p = phase();
    boolean known = changes.registration(m.id()).isPresent();
    if (!known && p == Phase.STOPPING) {
      throw Refused.invalid("workerId", m.id(), "the job stops for a restart after step " + stop.atStep()
          + "; start the worker in the restarted job");
    }
    if (!known && (p == Phase.RECOVERING || p == Phase.FINISHING || p == Phase.FINISHED)) {
      return new Admission(changes.latest(), true, ledger.position(), RETRY_MS);
    }
    ChangeSchedule.Registered r = changes.register(m, unavailable());
    if (p == Phase.FORMING && changes.formed()) {
      recordVersion++;
      to(Phase.RUNNING);
    } else if (p == Phase.FORMING) {
      gathering.registered(changes.registeredCount(), ticker.nanos());
    }
    return new Admission(r.ring(), r.pending(), ledger.position(), 0);
  }

  /** A stop-resume relaunch forms its first ring with this many workers, all of them. */
  public void firstRingSize(int workers) {
    changes.firstRingSize(workers);
    gathering.waitForAll();
  }

  /**
   * Starts the job at its minimum: once min-workers have registered and the gathering window has
   * passed, the first ring forms with those registered; the rest join by ordinary switches.
   */
  private void formAtMinimum(long now) {
    if (changes.formed() || !gathering.formNow(now)) {
      return;
    }
    MemberRing ring = changes.formWithRegistered();
    recordVersion++;
    to(Phase.RUNNING);
    String event = "started with " + ring.size() + " of " + spec.scale().workers() + " workers after "
        + spec.scale().gatherMs() + " ms of gathering; the others join as they register";
    LOG.info("{}", event);
    event(event);
  }

  /** A newcomer's execution context is prepared; the switch is scheduled once every newcomer is. */
  public Optional<SwitchPlan> ready(String id) throws Refused {
    requireLeading();
    failures.requireNotFenced(id);
    changes.ready(id);
    scheduleIfReady();
    return changes.orderFor(id);
  }

  /**
   * A newcomer declared failed while it waited (its session ended, its switch failed) hears so
   * here and exits, instead of asking for an order that will never come until its start-up timeout.
   */
  public Optional<SwitchPlan> orderFor(String id) throws Refused {
    failures.requireNotFenced(id);
    return changes.orderFor(id);
  }

  /** Asks {@code id} to leave at a future step (merged into the change that waits for newcomers). */
  public SwitchPlan leave(String id) throws Refused {
    requireLeading();
    requireText("workerId", id);
    requireNoStop("workerId", id, "size the restarted job instead");
    requireTraining("workerId", id);
    SwitchPlan p = changes.leave(id, unavailable());
    scheduleIfReady();
    return changes.scheduled().filter(s -> s.leavers().contains(id)).orElse(p);
  }

  /** Migration in one switch; see {@link ChangeSchedule#replace}. */
  public SwitchPlan replace(List<String> leavers, int joiners) throws Refused {
    requireLeading();
    requireNoStop("leavers", leavers == null ? "null" : String.join(",", leavers), "size the restarted job instead");
    requireTraining("leavers", leavers == null ? "null" : String.join(",", leavers));
    return changes.replace(leavers, joiners);
  }

  public boolean cancelReplace(List<String> leavers) throws Refused {
    requireLeading();
    boolean withdrawn = changes.cancelReplace(leavers);
    scheduleIfReady();
    return withdrawn;
  }

  /**
   * Every member stops after step {@code t + k}, where the leader checkpoints into
   * {@code directory}. Asking again for the same directory returns the same plan.
   */
  public StopPlan stopForRestart(String directory) throws Refused {
    requireLeading();
    requireText("directory", directory);
    if (stop != null) {
      if (!stop.directory().equals(directory)) {
        throw Refused.invalid("directory", directory, "a stop for a restart into " + stop.directory()
            + " is already scheduled after step " + stop.atStep());
      }
      return stop;
    }
    if (!changes.formed()) {
      throw Refused.invalid("directory", directory, "the job has not formed its first ring yet: nothing to checkpoint");
    }
    if (changes.changePending()) {
      throw Refused.invalid("directory", directory, "a change to topology v" + changes.latest().version()
          + " is pending" + changes.scheduled().map(o -> " (at step " + o.atStep() + ")").orElse(" (waiting for newcomers)")
          + "; stop after it took effect");
    }
    if (phase() != Phase.RUNNING) {
      throw Refused.invalid("directory", directory, "the job is " + phase() + "; stop once it runs again");
    }
    long t = Math.max(ledger.highestReported(), ledger.position().step() - 1);
    long atStep = t + switchDelaySteps(allowanceNanos, ledger.meanBatchSeconds(changes.ring().ids()));
    long last = spec.training().steps() - 1;
    if (atStep > last) {
      atStep = Math.max(t + 1, last);
    }
    if (atStep > last) {
      throw Refused.invalid("directory", directory, "the job ends with step " + last + " before a stop could take effect");
    }
    confirmLeading();
    stop = new StopPlan(atStep, directory, leaderEpoch);
    recordVersion++;
    to(Phase.STOPPING);
    return stop;
  }

  // ------------------------------------------------------------------ steps

  /**
   * One member's report of one step. A step is complete when every member of the ring that runs
   * it reported; completing the switch step applies the switch.
   */
  public SyncAnswer sync(StepReport r) throws Refused {
    requireLeading();
    requireNewestEpoch(r.leaderEpoch());
    failures.requireNotFenced(r.workerId());
    long now = ticker.nanos();
    tick(now);
    if (phase() == Phase.RECOVERING) {
      // The old ring is over: tallying this step could only be undone by the recovery.
      ledger.noteReported(r.workerId(), r.step());
      return SyncAnswer.RECOVER;
    }
    requireLeading();
    MemberRing members = changes.membersFor(r.step());
    if (!members.contains(r.workerId())) {
      throw Refused.invalid("workerId", r.workerId(), "not a member of topology version " + members.version()
          + " that runs step " + r.step());
    }
    if (stop != null && r.step() > stop.atStep()) {
      throw Refused.invalid("step", Long.toString(r.step()), "the job stopped for a restart after step " + stop.atStep());
    }
    ledger.record(r, now);
    failures.reported(r.workerId());
    if (changes.reported(r.workerId())) {
      // The record no longer names it a newcomer: a successor would count it untrained in a recovery.
      recordVersion++;
    }
    // Taken before completing steps: this report may complete the switch step itself, and its
    // sender still has to learn that it switches there.
    Optional<SwitchPlan> scheduled = changes.scheduled();
    Optional<MemberRing> pending = changes.changePending() ? Optional.of(changes.latest()) : Optional.empty();
    completeReadySteps(now);
    return new SyncAnswer(pending, scheduled.filter(o -> r.step() <= o.atStep()), Optional.ofNullable(stop),
        false);
  }

  private void completeReadySteps(long now) {
    while (true) {
      Phase p = phase();
      if (p != Phase.RUNNING && p != Phase.CHANGING && p != Phase.STOPPING) {
        return;
      }
      long step = ledger.position().step();
      if (step >= spec.training().steps()) {
        return;
      }
      boolean firstLossKnown = !Double.isNaN(ledger.firstLoss());
      Optional<StepLedger.Completed> done = ledger.completeNext(changes.membersFor(step).ids(), now);
      if (done.isEmpty()) {
        return;
      }
      if (!firstLossKnown && !Double.isNaN(ledger.firstLoss())) {
        // Into the record at once: a successor of a leader that dies before its next record would
        // otherwise report its own first step's loss as the job's.
        recordVersion++;
      }
      failures.detector().batchCompleted(done.get().slowestSeconds());
      Optional<SwitchPlan> applied = changes.applyIfDue(step);
      if (applied.isPresent()) {
        recordVersion++;
        // The first batches on the new ring include the broadcast and new connections.
        graceUntilStep = Math.max(graceUntilStep, step + GRACE_STEPS);
        // A joiner heartbeats from its switch on: one lost right there (its host cut) would
        // otherwise be judged by nothing until its ZooKeeper session ended, its first step's sync
        // never being opened by a leader that waits for it inside the all-reduce.
        applied.get().joiners().forEach(id -> failures.joined(id, now));
        if (applied.get().leaderLeaves()) {
          // From here on the successor answers; reports sent here now would be lost.
          to(Phase.HANDED_OVER);
          return;
        }
        to(Phase.RUNNING);
        checkPresence();
        scheduleIfReady();
      }
      removeStraggler(step, done.get().computeSeconds());
      if (ledger.position().step() >= spec.training().steps()
          && (phase() == Phase.RUNNING || phase() == Phase.CHANGING)) {
        recordVersion++;
        to(Phase.FINISHING);
      }
    }
  }

  /** Feeds the completed step to the detector and starts the removal of a straggler it names. */
  private void removeStraggler(long step, Map<String, Double> computeSeconds) {
    boolean inFlight = changes.somethingPending() || stop != null || phase() != Phase.RUNNING;
    Optional<StragglerDetector.Straggler> found = stragglers.step(computeSeconds, inFlight);
    if (found.isEmpty()) {
      return;
    }
    StragglerDetector.Straggler s = found.get();
    try {
      SwitchPlan order = leave(s.workerId());
      String event = "step " + step + ": removing " + s.describe() + (order.atStep() < 0 ? ""
          : "; it leaves after step " + order.atStep());
      LOG.warn("{}", event);
      event(event);
    } catch (Refused e) {
      // Not removable now (the job is at its end, for one): it may be named again later.
      stragglers.release(s.workerId());
      LOG.warn("Not removing {}: {}", s.describe(), e.getMessage());
    }
  }

  /** k = ceil(T_a / T_b), at least 1; T_b is the mean of the members' latest batch times. */
  static long switchDelaySteps(long allowanceNanos, double batchSeconds) {
    if (!(batchSeconds > 0)) {
      return 1;
    }
    double k = Math.ceil(allowanceNanos / 1e9 / batchSeconds);
    return Math.max(1, (long) Math.min(k, Integer.MAX_VALUE));
  }

  private void scheduleIfReady() {
    if (phase() != Phase.RUNNING || !changes.schedulable() || !confirmed()) {
      return;
    }
    long t = Math.max(ledger.highestReported(), ledger.position().step() - 1);
    long k = switchDelaySteps(allowanceNanos, ledger.meanBatchSeconds(changes.ring().ids()));
    SwitchPlan plan = changes.schedule(t, k, leaderEpoch, ledger.meanComputeSeconds(changes.ring().ids()),
        joinLagSeconds.getAsDouble());
    recordVersion++;
    LOG.info("Switch to topology {} scheduled at step {}: joiners {}, leavers {}{}", plan.next().describe(),
        plan.atStep(), plan.joiners(), plan.leavers(), plan.joinerShare() < 1
            ? "; in their first step each joiner computes " + plan.joinerShare() + " of an even part" : "");
    to(Phase.CHANGING);
  }

  // ------------------------------------------------------------------ failures

  /** A complete checkpoint of this job: consistent recovery goes back to the newest one. */
  public void checkpointWritten(CheckpointRef ref) {
    if (failures.checkpointWritten(ref, ledger.position().step())) {
      recordVersion++;
    }
  }

  /**
   * Why a member without its presence node is declared failed: its ZooKeeper session ended, or the
   * AM saw its container exit and removed the node at once (org.edl.am.ExitEvidence).
   */
  public static final String PRESENCE_GONE = "its presence node is gone (its ZooKeeper session ended, or its"
      + " container exited)";

  /**
   * The workers whose ZooKeeper presence node exists now. A ring member without one lost its
   * session: it is declared failed, unless it already reported its last step (it finished, left
   * or stopped). A newcomer without one whose switch is not scheduled is dropped from the change.
   */
  public void presence(Set<String> now) {
    present = Set.copyOf(now);
    checkPresence();
  }

  private void checkPresence() {
    if (present == null || !changes.formed() || !phase().leading()) {
      return;
    }
    for (String id : changes.ring().ids()) {
      if (!present.contains(id) && !id.equals(leaderId) && !failures.isFenced(id) && !departing(id)) {
        declareFailed(id, PRESENCE_GONE);
      }
    }
    for (String id : new ArrayList<>(changes.latest().ids())) {
      if (!present.contains(id) && !changes.ring().contains(id) && changes.dropJoiner(id)) {
        event("step " + ledger.position().step() + ": newcomer " + id + " is gone before its switch; dropped from the change");
        LOG.warn("Newcomer {} lost its ZooKeeper session before its switch was scheduled: dropped from the change", id);
        scheduleIfReady();
      }
    }
  }

  /** Applies the timing rules (missed sync, heartbeats, silence in a recovery); the leader's loop calls it. */
  public void tick(long now) {
    Phase p = phase();
    if (p == Phase.FORMING) {
      formAtMinimum(now);
      return;
    }
    if (!p.leading() || p == Phase.FINISHED) {
      return;
    }
    if (lastTickNanos != Long.MIN_VALUE && now - lastTickNanos > pauseNanos) {
      LOG.warn("The leader did not run for {} ms: nobody is judged by that time", (now - lastTickNanos) / 1_000_000);
      failures.pardon(now);
      ledger.pardon(now);
    }
    lastTickNanos = Math.max(lastTickNanos, now);
    Optional<StepLedger.OpenStep> open = ledger.openStep();
    List<String> openRing = open.map(o -> changes.membersFor(o.step()).ids()).orElse(List.of());
    Set<String> ids = new LinkedHashSet<>(changes.ring().ids());
    ids.addAll(openRing);
    List<String> candidates = ids.stream().filter(id -> !id.equals(leaderId) && !failures.isFenced(id)
        && !departing(id)).toList();
    boolean grace = open.map(o -> o.step() <= graceUntilStep).orElse(false);
    failures.suspects(candidates, open, openRing, grace, now).forEach(this::declareFailed);
  }

  /** A member's heartbeat: who is alive, and the news a member blocked in its all-reduce needs. */
  public HeartbeatAnswer heartbeat(String id, long memberEpoch) throws Refused {
    requireLeading();
    requireNewestEpoch(memberEpoch);
    failures.heartbeat(id, ticker.nanos());
    return news(id, Long.MAX_VALUE);
  }

  /**
   * What a member's heartbeat tells it now, without counting as a beat: a ring to abandon, its
   * fencing, and the scheduled switch it stays through when its version is above {@code knownSwitch}.
   */
  public HeartbeatAnswer news(String id, long knownSwitch) throws Refused {
    requireLeading();
    boolean fenced = failures.isFenced(id);
    long abandon = phase() == Phase.RECOVERING ? changes.ring().version() : -1;
    Optional<SwitchPlan> ahead = abandon >= 0 || fenced ? Optional.empty() : changes.scheduled()
        .filter(o -> o.next().version() > knownSwitch && changes.ring().contains(id) && o.next().contains(id));
    return new HeartbeatAnswer(leaderEpoch, abandon, fenced, ahead);
  }

  /**
   * A member asks how to go on after its ring failed ({@code completed}: the last step its model
   * holds, {@link #MODEL_LOST} when none is intact).
   *
   * @return the order once every survivor asked; empty while it is not decided
   */
  public Optional<RecoveryPlan> requestRecovery(String id, long completed, long nextBatchStart) throws Refused {
    return requestRecovery(id, completed, nextBatchStart, List.of());
  }

  /** As above, with the ring neighbours whose links {@code id} saw break ({@code brokenLinks}). */
  public Optional<RecoveryPlan> requestRecovery(String id, long completed, long nextBatchStart,
      List<String> brokenLinks) throws Refused {
    requireLeading();
    failures.requireNotFenced(id);
    if (phase() == Phase.FINISHED) {
      throw Refused.invalid("workerId", id, "the job has finished: its model is written");
    }
    Optional<RecoveryPlan> again = failures.orderAgain(id);
    if (again.isPresent()) {
      return again;
    }
    if (!changes.ring().contains(id)) {
      throw Refused.invalid("workerId", id, "is not a member of the running ring v" + changes.ring().version());
    }
    long now = ticker.nanos();
    if (phase() != Phase.RECOVERING) {
      to(Phase.RECOVERING);
      recordVersion++;
    }
    failures.asked(id, completed, nextBatchStart, now);
    brokenLinks.stream().filter(changes.ring()::contains).forEach(peer -> failures.linkBroke(peer, id, now));
    tick(now);
    decideIfReady();
    return phase() == Phase.RECOVERING ? Optional.empty() : failures.handOut(id);
  }

  /** The order decided while {@code id} waited (on another member's call), if it is for it. */
  public Optional<RecoveryPlan> decidedFor(String id) {
    if (phase() == Phase.RECOVERING) {
      return Optional.empty();
    }
    return failures.last().filter(o -> o.ring().contains(id) && o.version() == changes.ring().version())
        .flatMap(o -> failures.handOut(id));
  }

  private void declareFailed(String id, String why) {
    if (failures.isFenced(id) || id.equals(leaderId) || !confirmed()) {
      return;
    }
    Phase p = phase();
    if (p != Phase.RECOVERING) {
      if (!p.mayBecome(Phase.RECOVERING)) {
        return;
      }
      to(Phase.RECOVERING);
    }
    failures.declare(id, why, ticker.nanos());
    recordVersion++;
    LOG.warn("{} declared failed at step {}: {}; {} recovery", id, ledger.position().step(), why,
        spec.recovery().mode().flag());
    decideIfReady();
  }

  private void decideIfReady() {
    if (phase() != Phase.RECOVERING) {
      return;
    }
    Optional<List<Member>> survivors = failures.survivors(changes.ring());
    if (survivors.isEmpty() || !confirmed()) {
      return;
    }
    Set<String> failed = failures.failedNow();
    FailureRecovery.Decision d = failures.decide(changes.ring(), survivors.get(), changes.untrainedJoiners(),
        ledger.position().step(), leaderEpoch, ledger::positionAt);
    ledger.resetTo(d.position());
    changes.recovered(d.plan().ring(), failed);
    for (String id : failed) {
      ledger.forget(id);
      stragglers.release(id);
    }
    graceUntilStep = ledger.position().step() + GRACE_STEPS - 1;
    d.events().forEach(this::event);
    LOG.warn("{}", d.events().get(d.events().size() - 1));
    recordVersion++;
    if (stop != null && ledger.position().step() <= stop.atStep()) {
      to(Phase.STOPPING);
    } else if (ledger.position().step() >= spec.training().steps()) {
      to(Phase.FINISHING);
    } else {
      to(Phase.RUNNING);
      scheduleIfReady();
    }
  }

  // ------------------------------------------------------------------ the end

  /** Where a member that trained the last step stands: the output written, recover, or wait. */
  public FinishAnswer finishStatus(String id) throws Refused {
    requireLeading();
    failures.requireNotFenced(id);
    return switch (phase()) {
      case FINISHED -> {
        toldDone.add(id);
        yield new FinishAnswer(true, false, output);
      }
      case RECOVERING -> new FinishAnswer(false, true, null);
      default -> new FinishAnswer(false, false, null);
    };
  }

  /** The leader wrote the model and metrics: members may exit. */
  public void finished(JobOutput written) throws Refused {
    requireLeading();
    if (phase() != Phase.FINISHING) {
      throw Refused.invalid("phase", phase().name(), "the output is written once the last step is complete");
    }
    output = written;
    recordVersion++;
    to(Phase.FINISHED);
  }

  /** The stop's checkpoint is written: this incarnation of the job is over (the record says where it went). */
  public void stopped(String checkpoint) throws Refused {
    requireLeading();
    if (phase() != Phase.STOPPING) {
      throw Refused.invalid("phase", phase().name(), "only a job stopping for a restart stops");
    }
    stoppedInto = checkpoint;
    recordVersion++;
  }

  /** Whether every other member of the final ring has been told the output is written. */
  public boolean everyoneTold() {
    return toldDone.containsAll(changes.ring().ids().stream().filter(id -> !id.equals(leaderId)).toList());
  }

  // ------------------------------------------------------------------ succession

  /** What a successor starts from: see {@link Succession}. */
  public JobRecord record() {
    return new JobRecord(String.valueOf(leaderId), leaderEpoch, changes.ring(), ledger.position(),
        failures.newestCheckpoint().orElse(null), failures.initial(), List.copyOf(failures.fenced().keySet()),
        changes.pending(leaderEpoch).orElse(null), stragglers.runs(), ledger.firstLoss(),
        phase() == Phase.HANDED_OVER, output, stoppedInto, stop, changes.joinOrders());
  }

  /** What the leader reports to the ApplicationMaster. */
  public LeaderProgress progress() {
    JobPosition p = ledger.position();
    long last = ledger.lastCompletionNanos();
    return new LeaderProgress(p.step(), spec.training().steps(), p.lastLoss(), ledger.recentSamplesPerSecond(),
        changes.ring().size(), p.dataEpoch(), p.samplesSeen(), last < 0 ? Double.NaN : last / 1e9,
        ledger.firstLoss(), events(), leaderEpoch, changes.ring().version(), changes.ring().ids(),
        List.copyOf(failures.fenced().keySet()), phase(), output);
  }

  // ------------------------------------------------------------------ helpers

  /** Ring members declared failed and not recovered from yet: they leave room for newcomers. */
  private int unavailable() {
    return (int) changes.ring().ids().stream().filter(failures::isFenced).count();
  }

  /** Already reported its last step: the end of the job, a stop, or its own departure. */
  private boolean departing(String id) {
    long last = ledger.lastReported(id);
    if (!ledger.hasReported(id)) {
      return false;
    }
    long finalStep = spec.training().steps() - 1;
    if (stop != null) {
      finalStep = Math.min(finalStep, stop.atStep());
    }
    OptionalLong leaves = changes.leavesAt(id);
    if (leaves.isPresent()) {
      finalStep = Math.min(finalStep, leaves.getAsLong());
    }
    return last >= finalStep;
  }

  private void event(String event) {
    events.addLast(event);
    while (events.size() > MAX_EVENTS) {
      events.pollFirst();
    }
  }

  /** A successor keeps the stop its predecessor scheduled. */
  void inheritStop(StopPlan s) {
    stop = s;
  }

  /** A successor that was handed a change not yet scheduled schedules it when it can. */
  void resumeSchedule() {
    scheduleIfReady();
  }

  void output(JobOutput o) {
    output = o;
  }

  void presenceKnown(Set<String> p) {
    present = p == null ? null : Set.copyOf(p);
  }

  void dirty() {
    recordVersion++;
  }

  /**
   * Moves to {@code next} from the current phase. Only the leader's one thread moves the phase, so
   * a move that finds it changed underneath is a bug, not a race to log.
   *
   * @throws IllegalStateException the phase table has no such move, or another thread moved it
   */
  void to(Phase next) {
    Phase now = phase();
    if (!lifecycle.move(now, next)) {
      throw new IllegalStateException("coordinator " + leaderId + " could not move " + now + " -> " + next
          + ": another thread moved it to " + phase());
    }
  }

  private void requireLeading() throws Refused {
    Phase p = phase();
    if (!p.leading()) {
      throw new Refused(Refused.Kind.NOT_LEADER, "coordinator", String.valueOf(leaderId),
          "is not the leader" + (p == Phase.HANDED_OVER ? " any more (handed over)" : " (" + p + ")"));
    }
  }

  /** A member that knows a newer leader epoch shows that this leadership is over. */
  private void requireNewestEpoch(long memberEpoch) throws Refused {
    if (memberEpoch > leaderEpoch) {
      lifecycle.fence("a member follows leader epoch " + memberEpoch + ", newer than this one's " + leaderEpoch);
      requireLeading();
    }
  }

  private boolean confirmed() {
    if (guard.stillLeading()) {
      return true;
    }
    lifecycle.fence("leader epoch " + leaderEpoch + " is not the newest any more (or its ZooKeeper session is gone)");
    return false;
  }

  private void confirmLeading() throws Refused {
    if (!confirmed()) {
      requireLeading();
    }
  }

  private void requireNoStop(String field, String value, String hint) throws Refused {
    if (stop != null) {
      throw Refused.invalid(field, value, "the job stops for a restart after step " + stop.atStep() + "; " + hint);
    }
  }

  private void requireTraining(String field, String value) throws Refused {
    Phase p = phase();
    if (p == Phase.FORMING) {
      throw Refused.invalid(field, value, "is not a member of the running ring v0");
    }
    if (p == Phase.FINISHING || p == Phase.FINISHED) {
      throw Refused.invalid(field, value, "the job has trained its last step");
    }
  }

  private static void requireText(String field, String value) throws Refused {
    if (value == null || value.isBlank()) {
      throw Refused.invalid(field, String.valueOf(value), "must not be empty");
    }
  }
}
