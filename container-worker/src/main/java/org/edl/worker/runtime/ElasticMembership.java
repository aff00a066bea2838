package org.edl.worker.runtime;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.edl.thrift.EdlError;
import org.edl.thrift.FinishReply;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.collective.AllReduce;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.collective.PeerLink;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.JobOutput;
import org.edl.worker.coord.JoinerShare;
import org.edl.worker.coord.Phase;
import org.edl.worker.coord.Ticker;
import org.edl.worker.coord.rpc.CoordinatorClient;
import org.edl.worker.coord.Leadership;
import org.edl.worker.coord.rpc.Wire;
import org.edl.worker.emulated.Placement;
import org.edl.worker.model.PlacementAware;
import org.edl.worker.model.RingAware;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This worker's place in a ring that changes while it trains: the mechanism behind
 * {@code notifyBatchEnd}. Every batch end it reports to the leader; a {@link SwitchOrder} in the
 * reply makes it form the new ring on a background thread (and, on the broadcaster, dial the
 * newcomers) while the old ring keeps training; at the order's step it swaps rings and carries on
 * at once: the new ring's links, and the broadcaster's sending of the model, are finished in the
 * background, and only the first all-reduce on the new ring waits for them ({@link TrainingRing}).
 * A leaver stops there; a leaving leader first publishes the record its successor starts from
 * and leaves the election.
 *
 * <p>A {@link StopOrder} in a reply (stop-resume) ends every member's run after its step; the
 * leader first waits for every member's report of that step and writes the checkpoint.
 *
 * <p>Failures ({@link #recover}): when its all-reduce fails (also when the ring of a switch cannot
 * be connected or a newcomer is gone before it has the model), a sync reply says recover or the
 * heartbeat says a member of its ring was declared failed ({@link #abandon}), the worker drops
 * the ring (and any switch being prepared), asks the leader for the {@link RecoveryOrder} with the last step its model holds,
 * forms the survivors' ring and gets the model there: consistent, every survivor loads the
 * order's checkpoint (or the job's initial state); approximate, the named survivor sends its
 * model and position to the others; resume (only untrained newcomers were lost), every survivor
 * keeps its own. A worker the leader declared failed is refused: {@link FencedException}.
 *
 * <p>The end ({@link #finish}): a member that trained the last step exits only once the output
 * is written; the leader writes it, and a successor of a leader that died first writes it.
 */
final class ElasticMembership implements TrainingLoop.BatchEnd, TrainingLoop.Recoverer, TrainingLoop.Finisher,
    HeartbeatSender.Listener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ElasticMembership.class);

  /** The leader's part of a stop: the checkpoint of the model at {@code next}, into the order's directory. */
  @FunctionalInterface
  interface Checkpointer {
    Checkpoint write(StopOrder order, ModelBroadcast.Position next, int workers) throws Exception;
  }

  /** Consistent recovery: loads the checkpoint at {@code path} into the model, or (null) the initial state. */
  @FunctionalInterface
  interface StateRestorer {
    void restore(String path) throws IOException;
  }

  /** The leader's part of the end: model and metrics for a job that ends at {@code end} on a ring of {@code workers}. */
  @FunctionalInterface
  interface OutputWriter {
    JobOutput write(ModelBroadcast.Position end, int workers) throws Exception;
  }

  /** Taking part in the election, which only ring members do. */
  interface Candidacy {
    /** This worker trains in a ring: it may be elected from now on. */
    void join();

    /** It leaves the ring (or the job ends for it): never elected again. */
    void leave();
  }

  /** The worker's runtime pieces a membership uses; one per worker. */
  record Context(String workerId, DataPlane plane, LeaderConnection leader, Leadership coordinator,
      Candidacy candidacy, TrainableModel model, Duration timeout, Ticker ticker, WorkerListener listener,
      Runnable onLeading, int gpusPerWorker, MemberLifecycle phases) {}

  /** What only the leader does at a stop, at the end, at a recovery: write and read the job's state. */
  record Duties(Checkpointer checkpointer, PeriodicCheckpoints periodic, StateRestorer restorer, OutputWriter output) {}

  private final Context cx;
  private final Duties duties;
  private final String workerId;
  private final ExecutorService background;
  private final ModelBroadcast broadcast;
  private final List<SwitchRecord> switches = new CopyOnWriteArrayList<>();
  private volatile TrainingRing ring;
  /** The switch this worker acts on at its step (from a sync reply); training thread only. */
  private SwitchOrder order;
  /** Guards {@link #prepared}, which a heartbeat's news of a switch may start from its own thread. */
  private final Object preparing = new Object();
  private PreparedSwitch prepared;
  private StopOrder stop;
  private StopRecord stopped;
  /** A stayer's record waits for its first batch on the new ring, which the switch may slow. */
  private SwitchRecord awaitingFirstBatch;

  ElasticMembership(Context cx, Duties duties, TrainingRing ring) {
    this.cx = cx;
    this.broadcast = new ModelBroadcast(cx.plane().sharedMemoryDir());
    this.duties = duties;
    this.workerId = cx.workerId();
    this.background = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "edl-switch-" + workerId);
      t.setDaemon(true);
      return t;
    });
    use(ring);
    // Fenced while it joined: it stays so, and its first batch end says it.
    cx.phases().move(MemberPhase.JOINING, MemberPhase.TRAINING);
  }

  /** The ring for the next batch. */
  AllReduce allReduce() {
    return ring;
  }

  /** The ring this worker trains on; null between rings. */
  TrainingRing ring() {
    return ring;
  }

  /** The version of the ring this worker trains on (0 between rings). */
  long ringVersion() {
    TrainingRing r = ring;
    return r == null ? 0 : r.version();
  }

  /** Whether it left the job at a switch (its record of that switch is a leaver's). */
  boolean left() {
    return switches.stream().anyMatch(r -> r.role() == SwitchRecord.Role.LEAVER);
  }

  /** How this worker stopped for a restart; empty unless it did. */
  Optional<StopRecord> stopped() {
    return Optional.ofNullable(stopped);
  }

  List<SwitchRecord> switches() {
    return List.copyOf(switches);
  }

  /** Records a switch this worker took part in outside the batch end (its own joining). */
  void record(SwitchRecord r) {
    switches.add(r);
    cx.listener().switched(workerId, r);
  }

  /** Records what is still waiting for a first batch that never came (the job ended). */
  void finishRecords() {
    duties.periodic().close();
    if (awaitingFirstBatch != null) {
      record(awaitingFirstBatch);
      awaitingFirstBatch = null;
    }
  }

  // ------------------------------------------------------------------ heartbeat news (any thread)

  @Override
  public void abandon(long ringVersion, String why) {
    TrainingRing r = ring;
    if (r != null && r.version() <= ringVersion) {
      LOG.warn("{} aborts its all-reduce on ring v{}: {}", workerId, r.version(), why);
      r.abort(why);
    }
    cx.plane().abandon(ringVersion, why);
  }

  /** Out of the job ({@link MemberLifecycle#fence} says why): every ring it is on is dropped. */
  @Override
  public void fenced(String why) {
    abandon(Long.MAX_VALUE, why);
  }

  @Override
  public long knownSwitch() {
    synchronized (preparing) {
      return prepared == null ? -1 : prepared.version();
    }
  }

  /**
   * The leader scheduled a switch this worker stays through: its ring (and the broadcaster's links
   * to the newcomers) connect now rather than after the sync reply of the switch step, which
   * carries the order only as that step ends. Only the switch from the ring this worker trains on
   * is prepared here, and only once: an older order is stale (a recovery replaced it), a later one
   * follows a switch this worker has still to make (the sync reply brings that first), and what
   * is prepared is replaced only by the sync reply's order.
   */
  @Override
  public void switchAhead(SwitchOrder o) {
    synchronized (preparing) {
      TrainingRing r = ring;
      if (r == null || o.getTopologyVersion() != r.version() + 1 || prepared != null
          || !cx.phases().move(MemberPhase.TRAINING, MemberPhase.PREPARED)) {
        return;
      }
      LOG.info("Switch to topology v{} scheduled at step {}: connecting its ring ahead of the step",
          o.getTopologyVersion(), o.getAtStep());
      prepare(o, true);
    }
  }

  /** Starts connecting for {@code o}, in place of anything prepared before; caller holds {@link #preparing}. */
  private void prepare(SwitchOrder o, boolean fromHeartbeat) {
    if (prepared != null) {
      prepared.discard();
    }
    prepared = PreparedSwitch.start(o, workerId, cx.plane(), background, cx.timeout());
    cx.listener().switchPrepared(workerId, o, fromHeartbeat);
  }

  // ------------------------------------------------------------------ batch end

  @Override
  public AllReduce batchEnd(SyncReport report, ModelBroadcast.Position next) throws Exception {
    requireNotFenced();
    if (awaitingFirstBatch != null) {
      record(awaitingFirstBatch.withFirstBatch(report.getBatchSeconds()));
      awaitingFirstBatch = null;
    }
    report.setLeaderEpoch(cx.leader().newestEpoch());
    SyncReply reply;
    try {
      reply = cx.leader().call(c -> c.sync(report));
    } catch (EdlError e) {
      throw fencedOr(e);
    }
    if (reply.isRecover()) {
      throw new TrainingLoop.RecoveryNeeded("the leader declared a member failed after step " + report.getStep());
    }
    if (reply.isSetStopOrder() && stop == null) {
      stop = reply.getStopOrder();
      cx.phases().to(MemberPhase.STOPPING);
      cx.listener().orderReceived(workerId, "stop", stop.getLeaderEpoch(), -1);
      LOG.info("Stopping for a restart after step {} (checkpoint into {})", stop.getAtStep(), stop.getDirectory());
    }
    if (stop != null && report.getStep() == stop.getAtStep()) {
      return stopNow(next);
    }
    if (stop == null && cx.leader().isSelf()) {
      duties.periodic().afterStep(next, ring.size());
    }
    if (reply.isSetSwitchOrder()) {
      accept(report.getStep(), reply.getSwitchOrder());
    }
    if (order != null) {
      if (report.getStep() == order.getAtStep()) {
        return switchNow(next, report.getBatchSeconds());
      }
      if (report.getStep() > order.getAtStep()) {
        throw new IllegalStateException(workerId + " passed step " + order.getAtStep()
            + " of the switch to topology v" + order.getTopologyVersion() + " without switching");
      }
    }
    return ring;
  }

  // ------------------------------------------------------------------ the end

  @Override
  public void finish(ModelBroadcast.Position end) throws Exception {
    cx.phases().to(MemberPhase.FINISHING);
    long last = end.nextStep() - 1;
    int pollMs = (int) Math.max(100, Math.min(1_000, cx.timeout().toMillis() / 2));
    long deadline = System.nanoTime() + 4 * cx.timeout().toNanos();
    while (true) {
      requireNotFenced();
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("the job's output was not written within " + cx.timeout().multipliedBy(4)
            + " after step " + last);
      }
      if (cx.leader().isSelf() && cx.coordinator().isLeading()) {
        if (writeOutput(end, last)) {
          cx.phases().to(MemberPhase.DONE);
          return;
        }
        continue;
      }
      FinishReply r;
      try {
        r = cx.leader().call(c -> c.awaitFinish(workerId, last, pollMs));
      } catch (EdlError e) {
        throw fencedOr(e);
      }
      if (r.isDone()) {
        cx.listener().orderReceived(workerId, "finish", r.getLeaderEpoch(), -1);
        LOG.info("{} done: the leader (epoch {}) wrote the model to {}", workerId, r.getLeaderEpoch(), r.getModelPath());
        cx.phases().to(MemberPhase.DONE);
        return;
      }
      if (r.isRecover()) {
        throw new TrainingLoop.RecoveryNeeded("a member failed before the output was written");
      }
    }
  }

  /** The leader's end: every member's last report, then model and metrics, then tell the members. */
  private boolean writeOutput(ModelBroadcast.Position end, long last) throws Exception {
    Leadership c = cx.coordinator();
    Phase p = c.awaitEnd(cx.timeout());
    switch (p) {
      case FINISHED -> {
        // A successor of a leader that wrote the output before it died: only tell the members.
        c.awaitEveryoneTold(cx.timeout());
        return true;
      }
      case RECOVERING -> throw new TrainingLoop.RecoveryNeeded("a member failed before the output was written");
      case FINISHING -> {
        JobOutput out = duties.output().write(end, ring == null ? 0 : ring.size());
        c.finished(out, cx.timeout());
        if (!c.awaitEveryoneTold(cx.timeout())) {
          LOG.warn("Not every member heard within {} that the output is written; a successor will tell them",
              cx.timeout());
        }
        return true;
      }
      default -> {
        if (!p.leading()) {
          return false;
        }
        throw new TimeoutException("not every worker reported step " + last + " within " + cx.timeout()
            + " (the coordinator is " + p + ")");
      }
    }
  }

  // ------------------------------------------------------------------ recovery

  @Override
  public TrainingLoop.Resumed recover(long lastCompletedStep, ModelBroadcast.Position next, Exception cause)
      throws Exception {
    requireNotFenced();
    cx.phases().to(MemberPhase.RECOVERING);
    LOG.warn("{} recovers: its model holds step {}; {}", workerId, lastCompletedStep, cause.toString());
    // The ring first: a heartbeat's news of the cancelled switch finds no ring to prepare for.
    closeRing();
    abandonSwitch();
    // The leader's checkpoint in flight is registered before the order can be decided.
    duties.periodic().awaitWritten();
    RingRecovery.Recovered r = new RingRecovery(cx, duties.restorer(), this::requireNotFenced)
        .carryOut(lastCompletedStep, next, org.edl.worker.collective.BrokenLinkException.peersIn(cause));
    use(TrainingRing.connected(r.ring(), cx.timeout()));
    cx.phases().to(stop == null ? MemberPhase.TRAINING : MemberPhase.STOPPING);
    return new TrainingLoop.Resumed(ring, r.from());
  }

  /** A switch prepared on the old ring cannot happen any more. */
  private void abandonSwitch() {
    synchronized (preparing) {
      if (prepared != null) {
        prepared.discard();
        prepared = null;
      }
    }
    order = null;
    awaitingFirstBatch = null;
  }

  static Exception fencedOr(EdlError e) {
    if (CoordinatorClient.isFenced(e)) {
      return new FencedException(e.getMessage(), e);
    }
    return e;
  }

  private void requireNotFenced() throws FencedException {
    String why = cx.phases().fencedBecause();
    if (why != null) {
      throw new FencedException(workerId + " " + CoordinatorState.FENCED + ": " + why, null);
    }
  }

  // ------------------------------------------------------------------ switches

  /** Starts what can be prepared ahead of the switch step, while the old ring trains on. */
  private void accept(long reportedStep, SwitchOrder o) throws FencedException {
    if (order != null && order.getTopologyVersion() == o.getTopologyVersion()) {
      return;
    }
    order = o;
    cx.listener().switchOrdered(workerId, reportedStep, o);
    cx.listener().orderReceived(workerId, "switch", o.getLeaderEpoch(), o.getTopologyVersion());
    LOG.info("Switch to topology v{} at step {}: joiners {}, leavers {}{}", o.getTopologyVersion(),
        o.getAtStep(), o.getJoiners(), o.getLeavers(), o.isLeaderLeaves() ? ", the leader leaves" : "");
    if (!Wire.contains(o.getTopology(), workerId)) {
      cx.phases().to(MemberPhase.LEAVING);
      return;
    }
    cx.phases().to(MemberPhase.SWITCH_ORDERED);
    synchronized (preparing) {
      if (prepared == null || prepared.version() != o.getTopologyVersion()) {
        prepare(o, false);
      }
    }
  }

  /**
   * Swaps rings at the switch step without stopping: the new ring's links and the broadcast to
   * the newcomers complete on background threads while the first step on it computes (see
   * {@link TrainingRing}); a failure of either fails that step's all-reduce and the ring is
   * recovered from the switch step.
   */
  private AllReduce switchNow(ModelBroadcast.Position next, double batchSeconds) throws Exception {
    long start = cx.ticker().nanos();
    SwitchOrder o = order;
    int before = ring.size();
    order = null;
    if (o.getLeavers().contains(workerId)) {
      leaveAt(o, before, start, batchSeconds);
      return null;
    }
    PreparedSwitch p;
    synchronized (preparing) {
      p = prepared;
      prepared = null;
    }
    if (p == null || p.version() != o.getTopologyVersion()) {
      throw new IllegalStateException(workerId + " has no connections under way for the switch to topology v"
          + o.getTopologyVersion());
    }
    Future<Ring> connecting = p.ring();
    Future<List<PeerLink>> links = p.newcomerLinks();
    SwitchRecord.Role role = links == null ? SwitchRecord.Role.SURVIVOR : SwitchRecord.Role.BROADCASTER;
    Future<?> broadcasting = links == null ? null : background.submit(() -> {
      sendModel(links, next);
      return null;
    });
    closeRing();
    RingTopology topology = toRingTopology(o.getTopology());
    use(TrainingRing.connecting(topology, workerId, cx.timeout(), connecting, broadcasting,
        firstStepWeights(o, topology)));
    cx.phases().to(MemberPhase.TRAINING);
    long end = cx.ticker().nanos();
    if (o.isLeaderLeaves()) {
      // Not part of the stop: training on the new ring could go on; the next report needs the leader.
      String previous = cx.leader().address();
      cx.leader().followSuccessorOf(previous);
      LOG.info("Following the new leader at {}{}", cx.leader().address(), cx.leader().isSelf() ? " (this worker)" : "");
      if (cx.leader().isSelf()) {
        cx.onLeading().run();
      }
    }
    awaitingFirstBatch = new SwitchRecord(o.getTopologyVersion(), o.getAtStep(), role, before,
        ring.size(), start, end, batchSeconds, Double.NaN);
    return ring;
  }

  /**
   * The broadcaster's part of a switch, on a background thread: the model at {@code next} to every
   * newcomer. The parameters stay as they are until the all-reduce this must precede.
   */
  private void sendModel(Future<List<PeerLink>> links, ModelBroadcast.Position next) throws Exception {
    List<PeerLink> dialled;
    try {
      dialled = links.get(cx.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException | TimeoutException e) {
      PreparedSwitch.closeWhenDialled(links);
      throw e;
    }
    try {
      for (PeerLink link : dialled) {
        long start = cx.ticker().nanos();
        broadcast.send(link, next, cx.model().parameters(), cx.timeout());
        LOG.info("Sent the model for step {} to {} in {} ms", next.nextStep(), link.peerId(),
            (cx.ticker().nanos() - start) / 1_000_000);
      }
    } finally {
      dialled.forEach(PeerLink::close);
    }
  }

  /** This worker leaves at the switch; a leaving leader first publishes where its successor starts. */
  private void leaveAt(SwitchOrder o, int before, long start, double batchSeconds) throws Exception {
    if (o.isLeaderLeaves() && cx.leader().isSelf()) {
      if (!cx.coordinator().awaitStepComplete(o.getAtStep(), cx.timeout())
          && cx.coordinator().phase() != Phase.HANDED_OVER) {
        throw new TimeoutException("step " + o.getAtStep() + " did not complete before the hand-over");
      }
      cx.coordinator().departed(cx.timeout());
      LOG.info("Handed the job over at step {} through the published record", o.getAtStep());
    }
    cx.candidacy().leave();
    closeRing();
    record(new SwitchRecord(o.getTopologyVersion(), o.getAtStep(), SwitchRecord.Role.LEAVER,
        before, o.getTopology().getRingSize(), start, cx.ticker().nanos(), batchSeconds, Double.NaN));
    cx.phases().to(MemberPhase.DONE);
    LOG.info("{} left the job at step {}", workerId, o.getAtStep());
  }

  /** Ends the run after the stop step; the leader writes the checkpoint once every member reported it. */
  private AllReduce stopNow(ModelBroadcast.Position next) throws Exception {
    long start = cx.ticker().nanos();
    StopOrder s = stop;
    int workers = ring.size();
    Optional<String> written = Optional.empty();
    if (cx.leader().isSelf()) {
      if (!cx.coordinator().awaitStepComplete(s.getAtStep(), cx.timeout())) {
        throw new TimeoutException("not every worker reported step " + s.getAtStep() + " of the stop within "
            + cx.timeout() + "; no checkpoint written");
      }
      written = Optional.of(duties.checkpointer().write(s, next, workers).path().toString());
    }
    closeRing();
    stopped = new StopRecord(s.getAtStep(), workers, start, cx.ticker().nanos(), written);
    cx.phases().to(MemberPhase.DONE);
    cx.listener().stopped(workerId, stopped);
    LOG.info("{} stopped for a restart after step {}{}", workerId, s.getAtStep(),
        written.map(p -> "; checkpoint " + p).orElse(""));
    return null;
  }

  private void use(TrainingRing r) {
    ring = r;
    LOG.info("{} all-reduces on ring v{} as rank {} of {} ({})", workerId, r.version(), r.rank(), r.size(),
        r.transport());
    if (cx.model() instanceof PlacementAware aware) {
      aware.placedOn(Placement.of(r.topology().members().stream().map(RingTopology.Member::node).toList(),
          cx.gpusPerWorker()));
    }
    if (cx.model() instanceof RingAware aware) {
      aware.ringFormed(r.topology(), r.rank());
    }
  }

  private void closeRing() {
    TrainingRing r = ring;
    ring = null;
    if (r != null) {
      r.close();
    }
  }

  /** The weights of the first step after switch {@code o} on {@code next}; null for even parts. */
  static long[] firstStepWeights(SwitchOrder o, RingTopology next) {
    double share = Wire.joinerShareOf(o);
    if (share >= 1 || !o.isSetJoiners() || o.getJoiners().isEmpty()) {
      return null;
    }
    return JoinerShare.weights(next.size(), r -> o.getJoiners().contains(next.member(r).workerId()), share);
  }

  static RingTopology toRingTopology(Topology t) {
    return new RingTopology(t.getVersion(), t.getRing().stream()
        .map(w -> new RingTopology.Member(w.getWorkerId(), w.getHost(), w.getDataPort(), Wire.nodeOf(w),
            Wire.scriptPortOf(w))).toList());
  }

  @Override
  public void close() {
    duties.periodic().close();
    background.shutdownNow();
    closeRing();
    abandonSwitch();
  }
}
