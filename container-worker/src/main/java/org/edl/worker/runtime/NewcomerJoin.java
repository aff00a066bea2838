package org.edl.worker.runtime;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.collective.PeerLink;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingAllReduce;
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
 * <p>It calls {@code ready} first: the switch can only be scheduled at the step after the one
 * running when that call arrives, so whatever comes before it can cost a whole step of idle GPU.
 * What it can do beforehand it does while it waits for the order: it rehearses receiving a model,
 * an all-reduce and averaging a gradient (each runs several times slower the first time in a JVM,
 * and every member waits for the newcomer's first step) and builds its membership's pieces.
 */
final class NewcomerJoin {
  private static final Logger LOG = LoggerFactory.getLogger(NewcomerJoin.class);
  /** Floats a rehearsal sends itself: a few shared-memory slots' worth. */
  private static final int REHEARSAL_FLOATS = 1 << 20;
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
   * @param membershipFor builds the membership's pieces ahead of its ring; called on a thread of
   *                      its own while this one waits for the order and the model
   */
  Joined join(LeaderConnection leader, long version, TrainableModel model,
      Supplier<Function<TrainingRing, ElasticMembership>> membershipFor) throws Exception {
    leader.call(c -> {
      c.ready(config.workerId(), version);
      return null;
    });
    listener.readyToJoin(config.workerId(), version, config.ticker().nanos());
    LOG.info("Ready to join topology v{}", version);
    Thread rehearsal = rehearse(model.gradientLength());
    // On a thread of its own: the order is often there already, and the broadcaster waits for
    // this worker's answer before it sends; building these (Hadoop's client among them) took
    // 0.5 s on a busy machine, which was all added to the broadcast.
    CompletableFuture<Function<TrainingRing, ElasticMembership>> membershipOn = CompletableFuture.supplyAsync(
        membershipFor, r -> {
          Thread t = new Thread(r, "edl-membership-" + config.workerId());
          t.setDaemon(true);
          t.start();
        });
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
        // The broadcaster dials ahead of its switch, often most of a step after the order: until
        // then the rehearsal goes on; still running now, it would only take CPU from the receipt.
        rehearsal.interrupt();
        long dialled = config.ticker().nanos();
        from = new ModelBroadcast(plane.sharedMemoryDir()).receive(link, model.parameters(), config.rpcTimeout());
        LOG.info("Received the model from {}: {} ms after the order, {} ms of transfer", order.getBroadcasterId(),
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
      membership = membershipOn.join().apply(ring);
    } catch (CompletionException e) {
      ring.close();
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
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
      SwitchOrder order = leader.call(c -> {
        if (ready) {
          c.ready(config.workerId(), version);
        }
        int pollMs = ready ? Worker.POLL_MS : FIRST_POLL_MS;
        return c.awaitSwitch(config.workerId(), version, (int) Math.min(pollMs, Worker.left(deadline)));
      });
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

  /**
   * Receives a model from itself ({@link ModelBroadcast#rehearse}), all-reduces with a data plane
   * of its own ({@link RingAllReduce#rehearse}) and averages as many floats as its gradient, on a
   * thread of its own. Best effort: a failure only leaves the first time slow.
   */
  private Thread rehearse(int gradientFloats) {
    Thread t = new Thread(() -> {
      long start = System.nanoTime();
      try {
        ModelBroadcast.rehearse(plane, config.host(), REHEARSAL_FLOATS, config.rpcTimeout());
        RingAllReduce.rehearse(plane, config.host(), config.secret(), 4 * REHEARSAL_FLOATS, config.rpcTimeout());
        float[] scratch = new float[REHEARSAL_FLOATS];
        for (int i = 0; i < gradientFloats / REHEARSAL_FLOATS + 1 && !Thread.currentThread().isInterrupted(); i++) {
          TrainingLoop.average(scratch, 1);
        }
        LOG.info("Rehearsed receiving a model, an all-reduce and averaging a gradient in {} ms{}", (System.nanoTime() - start) / 1_000_000,
            Thread.currentThread().isInterrupted() ? " (cut short: the model is coming)" : "");
      } catch (InterruptedIOException e) {
        LOG.info("Rehearsal cut short after {} ms: the model is coming", (System.nanoTime() - start) / 1_000_000);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not rehearse receiving a model (the real one may come slower): {}", e.toString());
      }
    }, "edl-rehearsal-" + config.workerId());
    t.setDaemon(true);
    t.start();
    return t;
  }
}
