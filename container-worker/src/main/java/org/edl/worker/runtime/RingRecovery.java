package org.edl.worker.runtime;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.edl.thrift.EdlError;
import org.edl.thrift.RecoveryMode;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.collective.PeerLink;
import org.edl.worker.collective.Ring;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.rpc.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's part of one recovery: it asks the leader for the {@link RecoveryOrder} with the last
 * step its model holds until the order is decided, forms the survivors' ring and gets the model
 * there (consistent: every survivor loads the order's checkpoint or the initial state;
 * approximate: the named survivor sends its model and position to the others, or with none named
 * every survivor keeps its own; resume: every survivor keeps its own). When a survivor dies while the order is carried out, it asks again
 * with what its model holds by then. A member the leader declared failed is refused:
 * {@link FencedException}.
 */
final class RingRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(RingRecovery.class);

  /** Checks, between two waits, whether the worker is out of the job. */
  @FunctionalInterface
  interface FenceCheck {
    void requireNotFenced() throws FencedException;
  }

  /** The survivors' ring and where training goes on. */
  record Recovered(Ring ring, ModelBroadcast.Position from) {}

  private final ElasticMembership.Context cx;
  private final ElasticMembership.StateRestorer restorer;
  private final FenceCheck fence;
  private final String workerId;
  private final ModelBroadcast broadcast;

  RingRecovery(ElasticMembership.Context cx, ElasticMembership.StateRestorer restorer, FenceCheck fence) {
    this.cx = cx;
    this.broadcast = new ModelBroadcast(cx.plane().sharedMemoryDir());
    this.restorer = restorer;
    this.fence = fence;
    this.workerId = cx.workerId();
  }

  /**
   * From a model that holds {@code lastCompletedStep} (the next batch at {@code next}) to the
   * survivors' ring; {@code brokenLinks}: the neighbours whose links broke, told to the leader.
   */
  Recovered carryOut(long lastCompletedStep, ModelBroadcast.Position next, List<String> brokenLinks)
      throws Exception {
    long start = cx.ticker().nanos();
    long completed = lastCompletedStep;
    ModelBroadcast.Position at = next;
    long deadline = System.nanoTime() + 4 * cx.timeout().toNanos();
    while (true) {
      RecoveryOrder o = awaitOrder(completed, at, deadline, brokenLinks);
      Ring formed = null;
      boolean restored = false;
      try {
        formed = Ring.formForRecovery(cx.plane(), ElasticMembership.toRingTopology(o.getTopology()), cx.timeout());
        ModelBroadcast.Position from;
        if (o.getMode() == RecoveryMode.APPROXIMATE && o.isSetSourceId()) {
          from = exchangeModel(o, at);
        } else if (o.getMode() == RecoveryMode.APPROXIMATE || o.getMode() == RecoveryMode.RESUME) {
          from = new ModelBroadcast.Position(o.getNextStep(), o.getBatchStart());
        } else {
          restorer.restore(o.isSetCheckpoint() ? o.getCheckpoint() : null);
          restored = true;
          from = new ModelBroadcast.Position(o.getNextStep(), o.getBatchStart());
        }
        RecoveryRecord r = new RecoveryRecord(o.getTopologyVersion(), o.getMode().name().toLowerCase(),
            o.isSetFailed() ? List.copyOf(o.getFailed()) : List.of(), lastCompletedStep, from.nextStep(),
            from.batchStart(), o.getSourceId(), o.getCheckpoint(), formed.size(), start, cx.ticker().nanos());
        LOG.info("{} recovered onto topology v{} as rank {} of {}; going on from step {} (sample position {})",
            workerId, o.getTopologyVersion(), formed.rank(), formed.size(), from.nextStep(), from.batchStart());
        cx.listener().recovered(workerId, r);
        return new Recovered(formed, from);
      } catch (IOException e) {
        // A survivor failed while the order was carried out: ask again with what the model holds now.
        if (formed != null) {
          formed.close();
        }
        fence.requireNotFenced();
        if (restored) {
          completed = o.getNextStep() - 1;
          at = new ModelBroadcast.Position(o.getNextStep(), o.getBatchStart());
        } else if (o.getMode() == RecoveryMode.APPROXIMATE && o.isSetSourceId() && !workerId.equals(o.getSourceId())) {
          completed = CoordinatorState.MODEL_LOST;
        }
        LOG.warn("{} could not carry out recovery v{}: {}", workerId, o.getTopologyVersion(), e.toString());
      }
    }
  }

  private RecoveryOrder awaitOrder(long completed, ModelBroadcast.Position at, long deadline,
      List<String> brokenLinks) throws Exception {
    int pollMs = (int) Math.max(100, Math.min(5_000, cx.timeout().toMillis() / 2));
    while (true) {
      fence.requireNotFenced();
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("no recovery order from the leader within " + cx.timeout().multipliedBy(4));
      }
      RecoveryOrder o;
      try {
        o = cx.leader().call(c -> c.awaitRecovery(workerId, completed, at.batchStart(), pollMs, brokenLinks));
      } catch (EdlError e) {
        throw ElasticMembership.fencedOr(e);
      }
      if (o.getTopologyVersion() < 0) {
        continue;
      }
      if (!Wire.contains(o.getTopology(), workerId)) {
        throw new FencedException(workerId + " is not among the survivors of recovery v" + o.getTopologyVersion(), null);
      }
      cx.listener().orderReceived(workerId, "recovery", o.getLeaderEpoch(), o.getTopologyVersion());
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
        try (PeerLink link = cx.plane().connect(w.getWorkerId(), w.getHost(), w.getDataPort(),
            ModelBroadcast.RECOVERY_TAG, o.getTopologyVersion(), cx.timeout())) {
          broadcast.send(link, own, cx.model().parameters(), cx.timeout());
        }
      }
      return own;
    }
    try (PeerLink link = cx.plane().accept(o.getSourceId(), ModelBroadcast.RECOVERY_TAG, o.getTopologyVersion(),
        cx.timeout())) {
      return broadcast.receive(link, cx.model().parameters(), cx.timeout());
    }
  }
}
