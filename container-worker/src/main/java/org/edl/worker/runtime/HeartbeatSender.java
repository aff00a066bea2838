package org.edl.worker.runtime;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.edl.job.JobSecret;
import org.edl.thrift.Coordinator;
import org.edl.thrift.HeartbeatReply;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.coord.rpc.CoordinatorClient;
import org.edl.worker.coord.zk.LeaderFinder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's heartbeat to the leader, on a thread and a connection of its own: a worker blocked
 * in an all-reduce still sends it, so the member that sends none is the one that hangs (or is
 * gone). The answer carries what the training thread cannot learn while it is blocked: a member
 * of its ring was declared failed (abort the all-reduce and recover), or this worker itself was
 * (it exits). The leader is looked up again at every beat, so a successor hears from the
 * members at once. The leader asks its own coordinator the same way, so its training thread too
 * learns that a member of its ring was declared failed while it is blocked in the all-reduce.
 */
final class HeartbeatSender implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeartbeatSender.class);
  static final Duration INTERVAL = Duration.ofMillis(500);
  /** Between two beats at least: a leader that answers at once is not called in a loop. */
  private static final long MIN_GAP_MS = 20;
  /** Connect, handshake and answer: a leader that takes longer is as good as absent for a heartbeat. */
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

  /** What the training side does with the news. */
  interface Listener {
    /** Abort the all-reduce and any wait of a ring of this version or older, and recover. */
    void abandon(long ringVersion, String why);

    /** This worker was declared failed. */
    void fenced(String why);

    /** The topology version of the newest switch this worker knows of (-1: none). */
    long knownSwitch();

    /** A switch this worker stays through is scheduled: what can be connected early may be. */
    void switchAhead(SwitchOrder order);
  }

  private final String workerId;
  private final LeaderFinder finder;
  private final String selfAddress;
  private final Coordinator.Iface local;
  private final JobSecret secret;
  private final LeaderConnection connection;
  private final LongSupplier ringVersion;
  private final Listener listener;
  private final ScheduledExecutorService timer;
  private CoordinatorClient client;
  private String address;
  private long lastAbandoned = -1;

  HeartbeatSender(String workerId, LeaderFinder finder, String selfAddress, Coordinator.Iface local, JobSecret secret,
      LeaderConnection connection, LongSupplier ringVersion, Listener listener) {
    this.workerId = workerId;
    this.finder = finder;
    this.selfAddress = selfAddress;
    this.local = local;
    this.secret = secret;
    this.connection = connection;
    this.ringVersion = ringVersion;
    this.listener = listener;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "edl-heartbeat-" + workerId);
      t.setDaemon(true);
      return t;
    });
  }

  void start() {
    timer.execute(this::beatAndSchedule);
  }

  /**
   * The leader holds a beat until it has news or INTERVAL passed, so news (a switch scheduled, a
   * ring to abandon) comes at once; the next beat follows so that they still come about every INTERVAL.
   */
  private void beatAndSchedule() {
    long start = System.nanoTime();
    beat();
    long spentMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    try {
      timer.schedule(this::beatAndSchedule, Math.max(MIN_GAP_MS, INTERVAL.toMillis() - spentMs), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void beat() {
    try {
      String leader = finder.leaderAddress(CALL_TIMEOUT);
      Coordinator.Iface target;
      if (leader.equals(selfAddress)) {
        disconnect();
        target = local;
      } else {
        if (!leader.equals(address)) {
          disconnect();
          client = CoordinatorClient.connect(leader, secret, CALL_TIMEOUT);
          address = leader;
        }
        target = client;
      }
      HeartbeatReply reply = target.heartbeatAwaiting(workerId, connection.newestEpoch(), ringVersion.getAsLong(),
          listener.knownSwitch(), (int) INTERVAL.toMillis());
      connection.accept(reply.getLeaderEpoch());
      // The leader answered: a training thread still talking to an earlier one follows at once.
      connection.leaderElected(leader);
      if (reply.isFenced()) {
        listener.fenced("the leader (epoch " + reply.getLeaderEpoch() + ") declared " + workerId + " failed");
      } else if (reply.getAbandonRing() >= 0 && reply.getAbandonRing() != lastAbandoned) {
        lastAbandoned = reply.getAbandonRing();
        listener.abandon(reply.getAbandonRing(), "the leader declared a member of ring v" + reply.getAbandonRing()
            + " failed");
      } else if (reply.isSetSwitchOrder()) {
        listener.switchAhead(reply.getSwitchOrder());
      }
    } catch (LeaderConnection.StaleLeader e) {
      LOG.debug("Heartbeat answered by a superseded leader at {}: {}", address, e.getMessage());
      disconnect();
    } catch (Exception e) {
      LOG.debug("Heartbeat to {} failed: {}", address, e.toString());
      disconnect();
    }
  }

  private void disconnect() {
    if (client != null) {
      client.close();
    }
    client = null;
    address = null;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    disconnect();
  }
}
