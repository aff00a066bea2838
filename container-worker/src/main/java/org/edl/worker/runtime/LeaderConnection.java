package org.edl.worker.runtime;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.apache.thrift.transport.TTransportException;
import org.edl.job.JobSecret;
import org.edl.job.rpc.AuthenticationException;
import org.edl.thrift.Coordinator;
import org.edl.thrift.FinishReply;
import org.edl.thrift.HeartbeatReply;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.Registration;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.worker.coord.rpc.CoordinatorClient;
import org.edl.worker.coord.rpc.CoordinatorService;
import org.edl.worker.coord.zk.LeaderFinder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's way to the current leader: found through the election, reached over Thrift, or
 * this worker's own {@link CoordinatorService} when it leads. A call the leader refuses with
 * "not the leader" (elected but not serving yet, just handed over or fenced) is retried against
 * whoever leads then, with a short back-off, until the patience runs out.
 *
 * <p>Fencing on the member's side: every answer names the leader epoch that gave it. The
 * connection remembers the newest epoch it has seen (and reports it with every step, so that a
 * superseded leader learns it is one); an answer from an older epoch is dropped like a refusal
 * and the newest leader is looked up again.
 */
final class LeaderConnection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderConnection.class);

  @FunctionalInterface
  interface Call<T> {
    T apply(Coordinator.Iface leader) throws Exception;
  }

  /** An answer from a leadership older than one this worker has already followed. */
  static final class StaleLeader extends Exception {
    private static final long serialVersionUID = 1L;

    StaleLeader(String message) {
      super(message);
    }
  }

  private final LeaderFinder finder;
  private final String selfAddress;
  private final CoordinatorService local;
  private final JobSecret secret;
  private final Duration rpcTimeout;
  private final Duration patience;
  private final LeaderRefusals refusals = new LeaderRefusals();
  /** Told of a leader whose port refuses connections: its process is gone (see {@link LeaderRefusals}). */
  private final java.util.function.Consumer<String> deadLeader;
  private Coordinator.Iface current;
  private volatile CoordinatorClient client;
  private volatile String address;
  private volatile long newestEpoch;

  LeaderConnection(LeaderFinder finder, String selfAddress, CoordinatorService local,
      JobSecret secret, Duration rpcTimeout, Duration patience) {
    this(finder, selfAddress, local, secret, rpcTimeout, patience, address -> { });
  }

  /**
   * @param deadLeader told (on the calling thread, once per address) of a leader the election
   *                   still names whose port refuses connections
   */
  LeaderConnection(LeaderFinder finder, String selfAddress, CoordinatorService local,
      JobSecret secret, Duration rpcTimeout, Duration patience, java.util.function.Consumer<String> deadLeader) {
    this.deadLeader = deadLeader;
    this.finder = finder;
    this.selfAddress = selfAddress;
    this.local = local;
    this.secret = secret;
    this.rpcTimeout = rpcTimeout;
    this.patience = patience;
  }

  /** The newest leader epoch this worker has seen an answer from. */
  long newestEpoch() {
    return newestEpoch;
  }

  /** Calls the leader, following it when it changes; answers of a superseded leader are not taken. */
  synchronized <T> T call(Call<T> call) throws Exception {
    long deadline = System.nanoTime() + patience.toNanos();
    long backoffMs = 10;
    while (true) {
      try {
        if (current == null) {
          // A leader that just died may still be named in the latch until its session ends.
          attach(finder.leaderAddress(remaining(deadline)));
        }
        T answer = call.apply(current);
        accept(epochOf(answer));
        refusals.answered(address);
        return answer;
      } catch (Exception e) {
        if (!retriable(e) || System.nanoTime() > deadline) {
          throw e;
        }
        String refusing = address;
        if (refusing != null && !refusing.equals(selfAddress) && LeaderRefusals.isRefusal(e)
            && refusals.refused(refusing, System.nanoTime())) {
          LOG.warn("The leader at {} refuses connections: its process is gone; withdrawing it from the election",
              refusing);
          deadLeader.accept(refusing);
        }
        LOG.debug("Leader at {} did not answer ({}); looking again", address, e.toString());
        detach();
        Thread.sleep(backoffMs);
        backoffMs = Math.min(500, backoffMs * 2);
      }
    }
  }

  /** Takes note of an answer's epoch; refuses one older than the newest seen. */
  void accept(long epoch) throws StaleLeader {
    if (epoch <= 0) {
      return;
    }
    long newest = newestEpoch;
    if (epoch < newest) {
      throw new StaleLeader("an answer of leader epoch " + epoch + " after epoch " + newest + " was seen");
    }
    if (epoch > newest) {
      newestEpoch = epoch;
    }
  }

  /** The leader epoch an answer names; 0 when it names none. */
  static long epochOf(Object answer) {
    if (answer instanceof SyncReply r && r.isSetLeaderEpoch()) {
      return r.getLeaderEpoch();
    }
    if (answer instanceof Registration r && r.isSetLeaderEpoch()) {
      return r.getLeaderEpoch();
    }
    if (answer instanceof SwitchOrder o && o.isSetLeaderEpoch()) {
      return o.getLeaderEpoch();
    }
    if (answer instanceof RecoveryOrder o && o.isSetLeaderEpoch()) {
      return o.getLeaderEpoch();
    }
    if (answer instanceof StopOrder o && o.isSetLeaderEpoch()) {
      return o.getLeaderEpoch();
    }
    if (answer instanceof FinishReply r) {
      return r.getLeaderEpoch();
    }
    if (answer instanceof HeartbeatReply r) {
      return r.getLeaderEpoch();
    }
    return 0;
  }

  /**
   * The heartbeat found the leader at {@code elected}. When this connection talks to another one
   * (a leader that died or was paused and is superseded), its socket is closed from here: a call
   * blocked on it fails at once and is retried against the leader now elected, instead of waiting
   * out the call timeout. Not synchronized, on purpose: the call in flight holds the monitor.
   */
  void leaderElected(String elected) {
    String now = address;
    CoordinatorClient c = client;
    if (now != null && !now.equals(elected) && c != null) {
      LOG.info("The leader is at {} now, not {}: dropping the connection to the old one", elected, now);
      c.close();
    }
  }

  /** After the leader at {@code previous} announced it leaves: wait for and attach to its successor. */
  synchronized void followSuccessorOf(String previous) throws Exception {
    detach();
    attach(finder.leaderAddressOtherThan(previous, patience));
  }

  /**
   * Attaches to the leader now elected (the start-up thread's first look-up). A leader that
   * refuses the connection is left for the next {@link #call}, which looks again until the
   * patience runs out: a replacement for a dead leader starts while the latch still names it.
   */
  synchronized void attachToCurrent(Duration timeout) throws Exception {
    detach();
    String found = finder.leaderAddress(timeout);
    try {
      attach(found);
    } catch (Exception e) {
      if (!retriable(e)) {
        throw e;
      }
      LOG.info("Leader at {} did not answer ({}); looking again at the first call", found, e.toString());
      detach();
    }
  }

  /** A wrong job secret stays wrong: only an unreachable, superseded or not-yet-serving leader is retried. */
  private static boolean retriable(Exception e) {
    return CoordinatorClient.isNotLeader(e) || e instanceof TTransportException || e instanceof StaleLeader
        || (e instanceof java.io.IOException && !(e instanceof AuthenticationException));
  }

  synchronized boolean isSelf() {
    return current == local;
  }

  synchronized String address() {
    return address;
  }

  private void attach(String leaderAddress) throws Exception {
    address = leaderAddress;
    if (leaderAddress.equals(selfAddress)) {
      current = local;
    } else {
      client = CoordinatorClient.connect(leaderAddress, secret, rpcTimeout);
      current = client;
    }
  }

  private void detach() {
    if (client != null) {
      client.close();
    }
    client = null;
    current = null;
  }

  private static Duration remaining(long deadline) throws TimeoutException {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new TimeoutException("no leader answered in time");
    }
    return Duration.ofNanos(left);
  }

  @Override
  public synchronized void close() {
    detach();
  }
}
