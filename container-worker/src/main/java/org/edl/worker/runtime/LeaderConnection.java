package org.edl.worker.runtime;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.apache.thrift.transport.TTransportException;
import org.edl.thrift.Coordinator;
import org.edl.worker.coord.CoordinatorClient;
import org.edl.worker.coord.CoordinatorService;
import org.edl.worker.coord.LeaderElection;
import org.edl.worker.security.AuthenticationException;
import org.edl.worker.security.JobSecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's way to the current leader: found through the election, reached over Thrift, or
 * this worker's own {@link CoordinatorService} when it leads. A call the leader refuses with
 * "not the leader" (elected but not serving yet, or just handed over) is retried against
 * whoever leads then, with a short back-off, until the patience runs out.
 */
final class LeaderConnection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderConnection.class);

  @FunctionalInterface
  interface Call<T> {
    T apply(Coordinator.Iface leader) throws Exception;
  }

  private final LeaderElection election;
  private final String selfAddress;
  private final CoordinatorService local;
  private final JobSecret secret;
  private final Duration rpcTimeout;
  private final Duration patience;
  private Coordinator.Iface current;
  private CoordinatorClient client;
  private String address;

  LeaderConnection(LeaderElection election, String selfAddress, CoordinatorService local,
      JobSecret secret, Duration rpcTimeout, Duration patience) {
    this.election = election;
    this.selfAddress = selfAddress;
    this.local = local;
    this.secret = secret;
    this.rpcTimeout = rpcTimeout;
    this.patience = patience;
  }

  /** Calls the leader, following it when it changes. */
  synchronized <T> T call(Call<T> call) throws Exception {
    long deadline = System.nanoTime() + patience.toNanos();
    long backoffMs = 10;
    while (true) {
      try {
        if (current == null) {
          // A leader that just died may still be named in the latch until its session ends.
          attach(election.currentLeaderAddress(remaining(deadline)));
        }
        return call.apply(current);
      } catch (Exception e) {
        if (!retriable(e) || System.nanoTime() > deadline) {
          throw e;
        }
        LOG.debug("Leader at {} did not answer ({}); looking again", address, e.toString());
        detach();
        Thread.sleep(backoffMs);
        backoffMs = Math.min(500, backoffMs * 2);
      }
    }
  }

  /** After the leader at {@code previous} announced it leaves: wait for and attach to its successor. */
  synchronized void followSuccessorOf(String previous) throws Exception {
    detach();
    attach(election.leaderAddressOtherThan(previous, patience));
  }

  /**
   * Attaches to the leader now elected (the start-up thread's first look-up). A leader that
   * refuses the connection is left for the next {@link #call}, which looks again until the
   * patience runs out: a replacement for a dead leader starts while the latch still names it.
   */
  synchronized void attachToCurrent(Duration timeout) throws Exception {
    detach();
    String found = election.currentLeaderAddress(timeout);
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

  /** A wrong job secret stays wrong: only an unreachable or not-yet-serving leader is retried. */
  private static boolean retriable(Exception e) {
    return CoordinatorClient.isNotLeader(e) || e instanceof TTransportException
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
