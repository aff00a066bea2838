package org.edl.worker.coord;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.edl.job.JobSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's leadership of the job: the {@link CoordinatorState} it leads with, and the one
 * {@link LeaderLoop} thread that alone touches it. Each decision, the leader's tick, a presence
 * change and a fence is a task on the loop; each long poll a hold the loop answers when the state
 * has changed. It claims the epoch when elected, publishes the record through the
 * {@link LeaderStore} whenever it changed, and records the job's end. The Thrift face
 * ({@code coord.rpc.CoordinatorService}) and the worker's runtime both go through it.
 */
public final class Leadership {
  private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);
  /** How often the leader applies the detector's timing rules, and a hold looks at its deadline. */
  private static final long TICK_MS = 100;

  /** One decision or question of the leader's, asked of its state on the loop. */
  @FunctionalInterface
  public interface Decision<T> {
    T apply(CoordinatorState s) throws Refused;
  }

  private final JobSpec spec;
  private final Ticker ticker;
  private final Duration switchAllowance;
  /** The model's parameters, once this worker knows them; a joiner's expected lag follows ({@link JoinerShare}). */
  private volatile long modelFloats;
  private final String selfId;
  private final Lifecycle lifecycle;
  private final LeaderLoop loop;
  /** Set once before the election; read off the loop by the waits for the record to be written. */
  private volatile LeaderStore store = LeaderStore.unpersisted();
  // Everything below is the loop's alone.
  private CoordinatorState state;
  private CheckpointCheck checkpointCheck = CheckpointCheck.TRUSTING;
  /** The checkpoint a restarted job begins from (null: a fresh job at step 0). */
  private CheckpointRef restoredFrom;
  private int firstRingSize;
  /** The latest presence of the job's workers in ZooKeeper, for a state created later too. */
  private Set<String> present;
  private long publishedVersion = -1;

  /**
   * @param switchAllowance T_a, how far ahead switches are scheduled
   * @param selfId          the worker this leadership runs in (null in tests of formation)
   */
  public Leadership(JobSpec spec, Ticker ticker, Duration switchAllowance, String selfId) {
    this.spec = spec;
    this.ticker = ticker;
    this.switchAllowance = switchAllowance;
    this.selfId = selfId;
    String owner = selfId == null ? "coordinator" : selfId;
    this.lifecycle = new Lifecycle(owner);
    this.loop = new LeaderLoop(owner, ticker, TICK_MS, this::tick, lifecycle::leading);
  }

  public Lifecycle lifecycle() {
    return lifecycle;
  }

  public Phase phase() {
    return lifecycle.phase();
  }

  /** Where epochs are claimed and the record is kept (set before the election). */
  public void store(LeaderStore s) {
    store = s;
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
    loop.call(() -> checkpointCheck = check);
  }

  /**
   * The job restarts from {@code checkpoint}: should this worker lead the first ring, the job
   * begins at its position with {@code workers} workers. Called before the election.
   */
  public void startFrom(CheckpointRef checkpoint, int workers) {
    loop.call(() -> {
      restoredFrom = checkpoint;
      firstRingSize = workers;
      return null;
    });
  }

  /**
   * This worker was elected: claim a new epoch and lead from the newest record (or a fresh or
   * restored job before the first ring formed).
   *
   * @return false when it does not lead after all (it is not a candidate any more, it is not in
   *     the recorded ring, or the epoch could not be claimed): the caller gives up the election
   */
  public boolean lead() {
    return loop.call(this::leadOnLoop);
  }

  private boolean leadOnLoop() {
    if (lifecycle.phase() != Phase.CANDIDATE) {
      LOG.warn("Elected but not leading: the coordinator is {}", lifecycle.phase());
      return false;
    }
    LeaderStore s = store;
    long epoch;
    Optional<JobRecord> record;
    try {
      epoch = s.claimEpoch();
      record = s.read();
    } catch (Exception e) {
      lifecycle.fence("could not claim a leader epoch: " + e);
      return false;
    }
    CoordinatorSettings settings = new CoordinatorSettings(switchAllowance,
        () -> lifecycle.phase().leading() && s.stillCurrent(epoch), checkpointCheck, CoordinatorState.PAUSE,
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
    return true;
  }

  /**
   * Leadership is over (ZooKeeper session suspended or lost, latch gone): never act again. Does
   * not wait (ZooKeeper's threads call it): the loop fences before its next decision.
   */
  public void fence(String why) {
    loop.post(() -> lifecycle.fence(why));
  }

  /** This worker's run is over or it leaves: it never takes the job over. */
  public void retire() {
    loop.call(() -> {
      lifecycle.retire();
      return null;
    });
  }

  public boolean isLeading() {
    return lifecycle.leading();
  }

  /** The epoch this coordinator leads (or led) under; 0 before it ever led. */
  public long leaderEpoch() {
    return loop.call(() -> state == null ? 0L : state.leaderEpoch());
  }

  /** Whether this leadership is still the newest; the output writers ask before they commit. */
  public boolean stillLeading() {
    long epoch = leaderEpoch();
    return epoch > 0 && lifecycle.leading() && store.stillCurrent(epoch);
  }

  /** The workers whose ZooKeeper presence nodes exist now (every worker watches; the leader acts). */
  public void presence(Set<String> workers) {
    Set<String> now = Set.copyOf(workers);
    loop.post(() -> {
      present = now;
      if (state != null && lifecycle.leading()) {
        state.presence(present);
        publish();
      }
    });
  }

  /** A checkpoint of this job exists at {@code ref}: consistent recovery may go back to it. */
  public void checkpointWritten(CheckpointRef ref) {
    loop.call(() -> {
      if (state != null && lifecycle.leading()) {
        state.checkpointWritten(ref);
        publish();
      }
      return null;
    });
  }

  /** Waits (at most {@code timeout}) until the records published so far are written or refused. */
  public void awaitPublished(Duration timeout) {
    store.awaitPublished(timeout);
  }

  /** Whether a failure is being recovered from now (waits for the old ring's steps give up). */
  public boolean recoveryPending() {
    return lifecycle.phase() == Phase.RECOVERING;
  }

  /** The scheduled stop for a restart; empty when there is none or this worker never led. */
  public Optional<StopPlan> stopPlan() {
    return loop.call(() -> state == null ? Optional.<StopPlan>empty() : state.stopPlan());
  }

  /**
   * A leader that left at a switch publishes the record of the ring after it and waits until it
   * is written, before it gives up the election: the successor goes on from there.
   */
  public void departed(Duration timeout) {
    loop.call(() -> {
      if (state != null && lifecycle.phase() == Phase.HANDED_OVER) {
        publish();
      }
      return null;
    });
    store.awaitPublished(timeout);
  }

  /**
   * The model and metrics are written: the record says so (and is written before this returns),
   * and every member waiting in {@code awaitFinish} is told it may exit.
   */
  public void finished(JobOutput output, Duration timeout) throws Refused {
    recordAndAwait(s -> s.finished(output), timeout);
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
    loop.<Void, Refused>call(() -> {
      if (state == null) {
        throw new Refused(Refused.Kind.NOT_LEADER, "coordinator", String.valueOf(selfId), "never led");
      }
      end.apply(state);
      publish();
      return null;
    });
    store.awaitPublished(timeout);
  }

  /** Waits until every member of the final ring heard that the output is written (at most {@code timeout}). */
  public boolean awaitEveryoneTold(Duration timeout) throws InterruptedException {
    return loop.hold(() -> state == null || state.everyoneTold(), told -> told, timeout.toNanos());
  }

  /**
   * The leader at the job's end waits here until the last step is complete and nothing else is
   * under way: it returns FINISHING (write the output), FINISHED (it is written), RECOVERING (a
   * member failed first: recover), or the phase it found when it stopped leading or the wait
   * ran out.
   */
  public Phase awaitEnd(Duration timeout) throws InterruptedException {
    return loop.hold(lifecycle::phase, p -> p == Phase.FINISHING || p == Phase.FINISHED || p == Phase.RECOVERING
        || !p.leading(), timeout.toNanos());
  }

  /**
   * Waits until every member reported {@code step} (the leader waits for a stop step before it
   * writes the checkpoint, and a leaving leader for its switch's step).
   *
   * @return false on timeout, while a recovery is pending, or when this worker stopped leading
   */
  public boolean awaitStepComplete(long step, Duration timeout) throws InterruptedException {
    Optional<Boolean> complete = loop.hold(() -> {
      if (state == null || !lifecycle.leading()) {
        return Optional.of(false);
      }
      if (state.isComplete(step)) {
        return Optional.of(true);
      }
      return state.recoveryPending() ? Optional.of(false) : Optional.empty();
    }, Optional::isPresent, timeout.toNanos());
    return complete.orElse(false);
  }

  /** The progress report for the ApplicationMaster; empty when not leading. */
  public Optional<LeaderProgress> progress() {
    return whileLeading(CoordinatorState::progress);
  }

  /** The job position; empty when not leading. */
  public Optional<JobPosition> position() {
    return whileLeading(CoordinatorState::position);
  }

  private <T> Optional<T> whileLeading(Function<CoordinatorState, T> read) {
    return loop.call(() -> state == null || !lifecycle.leading()
        ? Optional.<T>empty() : Optional.of(read.apply(state)));
  }

  /** Whole-run figures for the metrics file; empty when this worker never led. */
  public Optional<RunSummary> summary() {
    return loop.call(() -> {
      if (state == null) {
        return Optional.<RunSummary>empty();
      }
      JobPosition p = state.position();
      return Optional.of(new RunSummary(p.step(), state.ring().size(), state.firstLoss().orElse(Double.NaN),
          p.lastLoss(), state.overallSamplesPerSecond(), p.samplesSeen(), state.leaderEpoch()));
    });
  }

  /** Publishes the record when it changed since the last time (on the loop). */
  private void publish() {
    if (state == null || state.ring().version() == 0 || state.recordVersion() == publishedVersion
        || !(lifecycle.leading() || lifecycle.phase() == Phase.HANDED_OVER)) {
      return;
    }
    publishedVersion = state.recordVersion();
    store.publish(state.record(), why -> fence("superseded: " + why));
  }


  /**
   * Makes a decision of the leading state on the loop and publishes what it changed.
   *
   * @throws Refused the decision's refusal, or this worker does not lead
   */
  public <T> T decide(Decision<T> d) throws Refused {
    return loop.call(() -> {
      T result = onLeading(d);
      publish();
      return result;
    });
  }

  /**
   * Asks {@code ask} of the leading state on the loop, again after every change and tick, until
   * {@code settled} holds for its answer or {@code timeoutNanos} (the ticker's) have passed;
   * returns the last answer.
   *
   * @throws Refused             the question's refusal, or this worker does not lead (any more)
   * @throws InterruptedException the caller was interrupted (a server stopping)
   */
  public <T> T hold(Decision<T> ask, Predicate<T> settled, long timeoutNanos) throws Refused, InterruptedException {
    return loop.hold(() -> onLeading(ask), settled, timeoutNanos);
  }

  private <T> T onLeading(Decision<T> d) throws Refused {
    if (state == null || !lifecycle.leading()) {
      Phase p = lifecycle.phase();
      throw new Refused(Refused.Kind.NOT_LEADER, "coordinator", "this worker",
          "is not the leader" + (p == Phase.HANDED_OVER ? " any more (handed over)" : " (" + p + ")"));
    }
    return d.apply(state);
  }

  /** The job's end (output written, or stopped for a restart) as the state this worker led records it. */
  @FunctionalInterface
  private interface Ending {
    void apply(CoordinatorState s) throws Refused;
  }

  /** The leader's tick (on the loop): the detector's timing rules. */
  private void tick() {
    if (state != null && lifecycle.leading()) {
      state.tick(ticker.nanos());
      publish();
    }
  }
}
