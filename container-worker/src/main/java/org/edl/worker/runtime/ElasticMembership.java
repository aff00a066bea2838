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
import org.edl.thrift.RecoveryMode;
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
import org.edl.worker.collective.RingAllReduce;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.coord.CoordinatorClient;
import org.edl.worker.coord.CoordinatorService;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.LeaderElection;
import org.edl.worker.coord.Ticker;
import org.edl.worker.emulated.Placement;
import org.edl.worker.model.PlacementAware;
import org.edl.worker.model.TrainableModel;
import org.edl.worker.security.JobSecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This worker's place in a ring that changes while it trains: the mechanism behind
 * {@code notifyBatchEnd}. Every batch end it reports to the leader; a {@link SwitchOrder} in the
 * reply makes it form the new ring on a background thread (and, on the broadcaster, dial the
 * newcomers) while the old ring keeps training; at the order's step it swaps rings, sends the
 * model if it is the broadcaster, and carries on. A leaver stops there; a leaving leader first
 * hands the job over and gives up its latch, and the others follow the new leader.
 *
 * <p>A {@link StopOrder} in a reply (stop-resume) ends every member's run after its step; the
 * leader first waits for every member's report of that step and writes the checkpoint.
 *
 * <p>Failures ({@link #recover}): when its all-reduce fails or a sync reply says recover, the
 * worker drops the old ring (and any switch being prepared), asks the leader for the
 * {@link RecoveryOrder} with the last step its model holds, forms the survivors' ring and gets
 * the model there: consistent, every survivor loads the order's checkpoint (or the job's initial
 * state); approximate, the named survivor sends its model and position to the others. A worker
 * the leader declared failed is refused: {@link FencedException}.
 */
final class ElasticMembership implements TrainingLoop.BatchEnd, TrainingLoop.Recoverer, AutoCloseable {
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

  private final String workerId;
  private final DataPlane plane;
  private final LeaderConnection leader;
  private final CoordinatorService coordinator;
  private final LeaderElection election;
  private final String selfAddress;
  private final JobSecret secret;
  private final TrainableModel model;
  private final Duration timeout;
  private final Ticker ticker;
  private final WorkerListener listener;
  private final Runnable onLeading;
  private final int gpusPerWorker;
  private final Checkpointer checkpointer;
  private final PeriodicCheckpoints periodic;
  private final StateRestorer restorer;
  private final ExecutorService background;
  private final ModelBroadcast broadcast = new ModelBroadcast();
  private final List<SwitchRecord> switches = new CopyOnWriteArrayList<>();
  private Ring ring;
  private RingAllReduce allReduce;
  private SwitchOrder order;
  private Future<Ring> nextRing;
  private Future<List<PeerLink>> newcomerLinks;
  private boolean left;
  private StopOrder stop;
  private StopRecord stopped;

  ElasticMembership(String workerId, DataPlane plane, LeaderConnection leader,
      CoordinatorService coordinator, LeaderElection election, String selfAddress, JobSecret secret,
      TrainableModel model, Ring ring, Duration timeout, Ticker ticker, WorkerListener listener,
      Runnable onLeading, int gpusPerWorker, Checkpointer checkpointer, PeriodicCheckpoints periodic,
      StateRestorer restorer) throws IOException {
    this.restorer = restorer;
    this.workerId = workerId;
    this.plane = plane;
    this.leader = leader;
    this.coordinator = coordinator;
    this.election = election;
    this.selfAddress = selfAddress;
    this.secret = secret;
    this.model = model;
    this.timeout = timeout;
    this.ticker = ticker;
    this.listener = listener;
    this.onLeading = onLeading;
    this.gpusPerWorker = gpusPerWorker;
    this.checkpointer = checkpointer;
    this.periodic = periodic;
    this.background = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "edl-switch-" + workerId);
      t.setDaemon(true);
      return t;
    });
    use(ring);
  }

  /** The ring for the next batch. */
  AllReduce allReduce() {
    return allReduce;
  }

  Ring ring() {
    return ring;
  }

  boolean left() {
    return left;
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
    listener.switched(workerId, r);
  }

  /** A stayer's record waits for its first batch on the new ring, which the switch may slow. */
  private SwitchRecord awaitingFirstBatch;

  /** Records what is still waiting for a first batch that never came (the job ended). */
  void finish() {
    periodic.close();
    if (awaitingFirstBatch != null) {
      record(awaitingFirstBatch);
      awaitingFirstBatch = null;
    }
  }

  @Override
  public AllReduce batchEnd(SyncReport report, ModelBroadcast.Position next) throws Exception {
    if (awaitingFirstBatch != null) {
      record(awaitingFirstBatch.withFirstBatch(report.getBatchSeconds()));
      awaitingFirstBatch = null;
    }
    SyncReply reply;
    try {
      reply = leader.call(c -> c.sync(report));
    } catch (EdlError e) {
      throw fencedOr(e);
    }
    if (reply.isRecover()) {
      throw new TrainingLoop.RecoveryNeeded("the leader declared a member failed after step " + report.getStep());
    }
    if (reply.isSetStopOrder() && stop == null) {
      stop = reply.getStopOrder();
      LOG.info("Stopping for a restart after step {} (checkpoint into {})", stop.getAtStep(), stop.getDirectory());
    }
    if (stop != null && report.getStep() == stop.getAtStep()) {
      return stopNow(next);
    }
    if (stop == null && !reply.isFinish() && leader.isSelf()) {
      periodic.afterStep(next, ring.size());
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
    return reply.isFinish() ? null : allReduce;
  }

  @Override
  public TrainingLoop.Resumed recover(long lastCompletedStep, ModelBroadcast.Position next, Exception cause)
      throws Exception {
    long start = ticker.nanos();
    LOG.warn("{} recovers: its model holds step {}; {}", workerId, lastCompletedStep, cause.toString());
    abandonSwitch();
    closeRing();
    // The leader's checkpoint in flight is registered before the order can be decided.
    periodic.awaitWritten();
    long completed = lastCompletedStep;
    ModelBroadcast.Position at = next;
    long deadline = System.nanoTime() + 4 * timeout.toNanos();
    while (true) {
      RecoveryOrder o = awaitOrder(completed, at, deadline);
      Ring formed = null;
      boolean restored = false;
      try {
        formed = Ring.form(plane, toRingTopology(o.getTopology()), timeout);
        ModelBroadcast.Position from;
        if (o.getMode() == RecoveryMode.APPROXIMATE) {
          from = exchangeModel(o, at);
        } else {
          restorer.restore(o.isSetCheckpoint() ? o.getCheckpoint() : null);
          restored = true;
          from = new ModelBroadcast.Position(o.getNextStep(), o.getBatchStart());
        }
        use(formed);
        RecoveryRecord r = new RecoveryRecord(o.getTopologyVersion(), o.getMode().name().toLowerCase(),
            o.isSetFailed() ? List.copyOf(o.getFailed()) : List.of(), lastCompletedStep, from.nextStep(),
            from.batchStart(), o.getSourceId(), o.getCheckpoint(), formed.size(), start, ticker.nanos());
        LOG.info("{} recovered onto topology v{} as rank {} of {}; going on from step {} (sample position {})",
            workerId, o.getTopologyVersion(), formed.rank(), formed.size(), from.nextStep(), from.batchStart());
        listener.recovered(workerId, r);
        return new TrainingLoop.Resumed(allReduce, from);
      } catch (IOException e) {
        // A survivor failed while the order was carried out: ask again with what the model holds now.
        if (formed != null) {
          formed.close();
        }
        if (restored) {
          completed = o.getNextStep() - 1;
          at = new ModelBroadcast.Position(o.getNextStep(), o.getBatchStart());
        } else if (o.getMode() == RecoveryMode.APPROXIMATE && !workerId.equals(o.getSourceId())) {
          completed = CoordinatorState.MODEL_LOST;
        }
        LOG.warn("{} could not carry out recovery v{}: {}", workerId, o.getTopologyVersion(), e.toString());
      }
    }
  }

  private RecoveryOrder awaitOrder(long completed, ModelBroadcast.Position at, long deadline) throws Exception {
    int pollMs = (int) Math.max(100, Math.min(5_000, timeout.toMillis() / 2));
    while (true) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("no recovery order from the leader within " + timeout.multipliedBy(4));
      }
      RecoveryOrder o;
      try {
        o = leader.call(c -> c.awaitRecovery(workerId, completed, at.batchStart(), pollMs));
      } catch (EdlError e) {
        throw fencedOr(e);
      }
      if (o.getTopologyVersion() < 0) {
        continue;
      }
      if (!CoordinatorState.contains(o.getTopology(), workerId)) {
        throw new FencedException(workerId + " is not among the survivors of recovery v" + o.getTopologyVersion(), null);
      }
      return o;
    }
  }

  /** Approximate: the source sends its model and position; every other survivor receives them. */
  private ModelBroadcast.Position exchangeModel(RecoveryOrder o, ModelBroadcast.Position own) throws IOException {
    if (workerId.equals(o.getSourceId())) {
      for (WorkerInfo w : o.getTopology().getRing()) {
        if (w.getWorkerId().equals(workerId)) {
          continue;
        }
        try (PeerLink link = plane.connect(w.getWorkerId(), w.getHost(), w.getDataPort(), ModelBroadcast.TAG,
            o.getTopologyVersion(), timeout)) {
          broadcast.send(link, own, model.parameters(), timeout);
        }
      }
      return own;
    }
    try (PeerLink link = plane.accept(o.getSourceId(), ModelBroadcast.TAG, o.getTopologyVersion(), timeout)) {
      return broadcast.receive(link, model.parameters(), timeout);
    }
  }

  /** A switch prepared on the old ring cannot happen any more. */
  private void abandonSwitch() {
    if (nextRing != null) {
      nextRing.cancel(true);
      closeQuietly(nextRing);
      nextRing = null;
    }
    if (newcomerLinks != null) {
      newcomerLinks.cancel(true);
      if (newcomerLinks.isDone() && !newcomerLinks.isCancelled()) {
        try {
          newcomerLinks.get().forEach(PeerLink::close);
        } catch (Exception e) {
          LOG.debug("newcomer links: {}", e.toString());
        }
      }
      newcomerLinks = null;
    }
    order = null;
    awaitingFirstBatch = null;
  }

  private static void closeQuietly(Future<Ring> ring) {
    if (ring.isDone() && !ring.isCancelled()) {
      try {
        ring.get().close();
      } catch (Exception e) {
        LOG.debug("abandoned ring: {}", e.toString());
      }
    }
  }

  private Exception fencedOr(EdlError e) {
    if (CoordinatorClient.isFenced(e)) {
      return new FencedException(e.getMessage(), e);
    }
    return e;
  }

  /** Starts what can be prepared ahead of the switch step, while the old ring trains on. */
  private void accept(long reportedStep, SwitchOrder o) {
    if (order != null && order.getTopologyVersion() == o.getTopologyVersion()) {
      return;
    }
    order = o;
    listener.switchOrdered(workerId, reportedStep, o);
    LOG.info("Switch to topology v{} at step {}: joiners {}, leavers {}{}", o.getTopologyVersion(),
        o.getAtStep(), o.getJoiners(), o.getLeavers(), o.isLeaderLeaves() ? ", the leader leaves" : "");
    if (!CoordinatorState.contains(o.getTopology(), workerId)) {
      // Leaving: never be elected with nothing to lead (the successor is handed the job).
      coordinator.retire();
      return;
    }
    RingTopology next = toRingTopology(o.getTopology());
    nextRing = background.submit(() -> Ring.form(plane, next, timeout));
    if (workerId.equals(o.getBroadcasterId())) {
      List<WorkerInfo> joiners = o.getTopology().getRing().stream()
          .filter(w -> o.getJoiners().contains(w.getWorkerId())).toList();
      newcomerLinks = background.submit(() -> {
        List<PeerLink> links = new ArrayList<>();
        for (WorkerInfo w : joiners) {
          links.add(plane.connect(w.getWorkerId(), w.getHost(), w.getDataPort(), ModelBroadcast.TAG,
              o.getTopologyVersion(), timeout));
        }
        return links;
      });
    }
  }

  private AllReduce switchNow(ModelBroadcast.Position next, double batchSeconds) throws Exception {
    long start = ticker.nanos();
    SwitchOrder o = order;
    int before = ring.size();
    order = null;
    if (o.getLeavers().contains(workerId)) {
      if (o.isLeaderLeaves() && leader.isSelf()) {
        handOver(o.getAtStep());
      }
      election.close();
      closeRing();
      left = true;
      record(new SwitchRecord(o.getTopologyVersion(), o.getAtStep(), SwitchRecord.Role.LEAVER,
          before, o.getTopology().getRingSize(), start, ticker.nanos(), batchSeconds, Double.NaN));
      LOG.info("{} left the job at step {}", workerId, o.getAtStep());
      return null;
    }
    Ring formed = nextRing.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    nextRing = null;
    closeRing();
    use(formed);
    SwitchRecord.Role role = SwitchRecord.Role.SURVIVOR;
    if (newcomerLinks != null) {
      role = SwitchRecord.Role.BROADCASTER;
      for (PeerLink link : newcomerLinks.get(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        try (link) {
          broadcast.send(link, next, model.parameters(), timeout);
        }
      }
      newcomerLinks = null;
    }
    long end = ticker.nanos();
    if (o.isLeaderLeaves()) {
      // Not part of the stop: training on the new ring could go on; the next report needs the leader.
      String previous = leader.address();
      leader.followSuccessorOf(previous);
      LOG.info("Following the new leader at {}{}", leader.address(), leader.isSelf() ? " (this worker)" : "");
      if (leader.isSelf()) {
        onLeading.run();
      }
    }
    awaitingFirstBatch = new SwitchRecord(o.getTopologyVersion(), o.getAtStep(), role, before,
        formed.size(), start, end, batchSeconds, Double.NaN);
    return allReduce;
  }

  /** Ends the run after the stop step; the leader writes the checkpoint once every member reported it. */
  private AllReduce stopNow(ModelBroadcast.Position next) throws Exception {
    long start = ticker.nanos();
    StopOrder s = stop;
    int workers = ring.size();
    Optional<String> written = Optional.empty();
    if (leader.isSelf()) {
      if (!coordinator.awaitStepComplete(s.getAtStep(), timeout)) {
        throw new TimeoutException("not every worker reported step " + s.getAtStep() + " of the stop within "
            + timeout + "; no checkpoint written");
      }
      written = Optional.of(checkpointer.write(s, next, workers).path().toString());
    }
    closeRing();
    stopped = new StopRecord(s.getAtStep(), workers, start, ticker.nanos(), written);
    listener.stopped(workerId, stopped);
    LOG.info("{} stopped for a restart after step {}{}", workerId, s.getAtStep(),
        written.map(p -> "; checkpoint " + p).orElse(""));
    return null;
  }

  /** The leaving leader's last duty: the job's state to every other candidate, then the latch. */
  private void handOver(long atStep) throws Exception {
    if (!coordinator.awaitStepComplete(atStep, timeout)) {
      throw new TimeoutException("step " + atStep + " did not complete before the hand-over");
    }
    CoordinatorState.Handoff h = coordinator.handoff().orElseThrow(
        () -> new IllegalStateException("lost leadership before handing over"));
    // Should a successor be elected without the hand-off below, the record says where the job is.
    coordinator.publishDeparture(timeout);
    for (String candidate : election.participants()) {
      if (candidate.equals(selfAddress)) {
        continue;
      }
      try (CoordinatorClient c = CoordinatorClient.connect(candidate, secret, timeout)) {
        c.handOff(h.meta(), h.topology(), h.pending().orElse(null), new java.util.HashMap<>(h.stragglerRuns()));
      } catch (Exception e) {
        LOG.warn("Handing the job to {} failed: {}", candidate, e.toString());
      }
    }
    LOG.info("Handed the job over at step {} (topology v{})", h.meta().getStep(), h.topology().getVersion());
  }

  private void use(Ring r) throws IOException {
    ring = r;
    allReduce = new RingAllReduce(r, timeout);
    if (model instanceof PlacementAware aware) {
      aware.placedOn(Placement.of(r.topology().members().stream().map(RingTopology.Member::host).toList(),
          gpusPerWorker));
    }
  }

  private void closeRing() {
    if (allReduce != null) {
      try {
        allReduce.close();
      } catch (IOException e) {
        LOG.debug("closing the ring's selector: {}", e.toString());
      }
    }
    if (ring != null) {
      ring.close();
    }
    allReduce = null;
    ring = null;
  }

  static RingTopology toRingTopology(Topology t) {
    return new RingTopology(t.getVersion(), t.getRing().stream()
        .map(w -> new RingTopology.Member(w.getWorkerId(), w.getHost(), w.getDataPort())).toList());
  }

  Optional<SwitchOrder> pendingOrder() {
    return Optional.ofNullable(order);
  }

  @Override
  public void close() {
    periodic.close();
    background.shutdownNow();
    closeRing();
  }
}
