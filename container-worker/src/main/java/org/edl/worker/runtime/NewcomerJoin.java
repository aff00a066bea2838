package org.edl.worker.runtime;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.collective.PeerLink;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A newcomer's way into a running job, once registered and its context prepared: ready, wait for
 * the order, receive the model and job position from the broadcaster while the new ring
 * connects. The existing workers train throughout; the first all-reduce on the new ring waits
 * for this worker's first gradients.
 *
 * <p>It says ready only once it has everything but the model and the ring: the leader then
 * schedules the switch at the end of the step running (or the one after), and from there every
 * member's first step on the new ring waits for this worker. Work it did after the call (its
 * membership's pieces, a gradient buffer, rehearsals of a model's receipt and an all-reduce) cost
 * the four others of a five-worker ring 0.3-0.5 s each whenever the step ended soon after the
 * call; done before it, it costs this worker's GPU alone.
 */
final class NewcomerJoin {
  private static final Logger LOG = LoggerFactory.getLogger(NewcomerJoin.class);
  /** How often a newcomer whose switch failed asks whether the leader has scheduled another. */
  private static final long RESCHEDULE_POLL_MS = 100;
  /** A first ask for the order that follows join's ready call. */
  private static final int FIRST_POLL_MS = 1_000;

  /** The membership it trains in and where it starts. */
  record Joined(ElasticMembership membership, ModelBroadcast.Position from) {}

  private final WorkerConfig config;
  private final WorkerListener listener;
  private final DataPlane plane;
  private final ExecutorService background;

  /** @param background where the new ring connects (the idle start-up thread) */
  NewcomerJoin(WorkerConfig config, WorkerListener listener, DataPlane plane, ExecutorService background) {
    this.config = config;
    this.listener = listener;
    this.plane = plane;
    this.background = background;
  }

  /**
   * @param version       the pending topology the registration named
   * @param membershipBuilder the membership's pieces, built before the ready call, awaiting its ring
   */
  Joined join(LeaderConnection leader, long version, TrainableModel model,
      Function<TrainingRing, ElasticMembership> membershipBuilder) throws Exception {
    try {
      leader.call(c -> {
        c.ready(config.workerId(), version);
        return null;
      });
    } catch (org.edl.thrift.EdlError e) {
      throw ElasticMembership.fencedOr(e);
    }
    listener.readyToJoin(config.workerId(), version, config.ticker().nanos());
    LOG.info("Ready to join topology v{}", version);
    SwitchOrder order = awaitOrder(leader, version);
    long start;
    TrainingRing ring;
    ModelBroadcast.Position from;
    while (true) {
      start = config.ticker().nanos();
      RingTopology next = ElasticMembership.toRingTopology(order.getTopology());
      ring = TrainingRing.connecting(next, config.workerId(), config.rpcTimeout(),
          background.submit(() -> Ring.form(plane, next, config.rpcTimeout())), null,
          ElasticMembership.firstStepWeights(order, next));
      try (PeerLink link = plane.accept(order.getBroadcasterId(), ModelBroadcast.TAG, order.getTopologyVersion(),
          config.rpcTimeout())) {
        long dialled = config.ticker().nanos();
        from = new ModelBroadcast(plane.sharedMemoryDir()).receive(link, model.parameters(), config.rpcTimeout());
        LOG.info("Received the model from {}: {} ms after the order, {} ms after its link", order.getBroadcasterId(),
            (config.ticker().nanos() - start) / 1_000_000, (config.ticker().nanos() - dialled) / 1_000_000);
        break;
      } catch (IOException e) {
        ring.close();
        // A member of the ring failed before the switch: the leader cancels it and schedules the
        // newcomers into the survivors' next one. Anything else is this worker's failure.
        SwitchOrder again = rescheduled(leader, version, order).orElseThrow(() -> e);
        LOG.warn("The switch to topology v{} was cancelled before the model came ({}); joining at topology v{}"
            + " instead", order.getTopologyVersion(), e.getMessage(), again.getTopologyVersion());
        order = again;
      } catch (Exception e) {
        ring.close();
        throw e;
      }
    }
    LOG.info("Joined topology v{} as rank {} of {}; starting at step {} (sample position {})",
        ring.version(), ring.rank(), ring.size(), from.nextStep(), from.batchStart());
    ElasticMembership membership;
    try {
      membership = membershipBuilder.apply(ring);
    } catch (RuntimeException | Error e) {
      ring.close();
      throw e;
    }
    membership.record(new SwitchRecord(order.getTopologyVersion(), order.getAtStep(),
        SwitchRecord.Role.JOINER, order.getTopology().getRingSize() - order.getJoinersSize()
            + (order.isSetLeavers() ? order.getLeaversSize() : 0),
        ring.size(), start, config.ticker().nanos(), Double.NaN, Double.NaN));
    return new Joined(membership, from);
  }

  /** The order for this worker, waiting up to the start-up timeout (join said ready just before). */
  private SwitchOrder awaitOrder(LeaderConnection leader, long version) throws Exception {
    return pollOrder(leader, version, -1, config.startupTimeout(), false).orElseThrow(() ->
        new TimeoutException("no switch into the job was scheduled within " + config.startupTimeout()));
  }

  /**
   * The order that replaced {@code failed} for this worker, if the leader makes one within the
   * call timeout (it first has to gather the failure's survivors); empty when it still names
   * {@code failed}.
   */
  private Optional<SwitchOrder> rescheduled(LeaderConnection leader, long version, SwitchOrder failed)
      throws Exception {
    return pollOrder(leader, version, failed.getTopologyVersion(), config.rpcTimeout(), true);
  }

  /**
   * Asks the leader for this worker's scheduled order of a topology version other than
   * {@code notVersion} until {@code within} has passed. Ready again on every round but a first
   * one that follows join's own ready call: idempotent, and a leader that took over since hears
   * it too; that first round is short, since such a successor has not heard it.
   */
  private Optional<SwitchOrder> pollOrder(LeaderConnection leader, long version, long notVersion, Duration within,
      boolean sayReadyFirst) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    boolean sayReady = sayReadyFirst;
    while (Worker.left(deadline) > 0) {
      boolean ready = sayReady;
      SwitchOrder order;
      try {
        order = leader.call(c -> {
          if (ready) {
            c.ready(config.workerId(), version);
          }
          int pollMs = ready ? Worker.POLL_MS : FIRST_POLL_MS;
          return c.awaitSwitch(config.workerId(), version, (int) Math.min(pollMs, Worker.left(deadline)));
        });
      } catch (org.edl.thrift.EdlError e) {
        throw ElasticMembership.fencedOr(e);
      }
      if (order.getAtStep() >= 0 && order.getTopologyVersion() != notVersion) {
        return Optional.of(order);
      }
      if (order.getAtStep() >= 0) {
        // The excluded order still stands (the recovery is not decided yet): the leader answers at once.
        Thread.sleep(Math.min(RESCHEDULE_POLL_MS, Math.max(1, Worker.left(deadline))));
      }
      sayReady = true;
    }
    return Optional.empty();
  }
}
