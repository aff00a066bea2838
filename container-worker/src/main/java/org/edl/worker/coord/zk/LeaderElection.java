package org.edl.worker.coord.zk;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.edl.job.JobPaths;
import org.edl.job.LeaderAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate in the job's leader election: a Curator {@link LeaderLatch} under
 * {@code /edl/<appId>/leader} whose participant id is the candidate's coordinator address
 * ({@code host:port}), so that any worker can read where the leader listens.
 *
 * <p>The lifecycle is LATENT, STARTED, CLOSED, changed only by compare-and-set. Leadership is
 * edge-triggered: listeners hear {@code isLeader} / {@code notLeader} only when it changes, on
 * the executor the caller supplies (give a single-threaded one to keep their order). A
 * SUSPENDED or LOST ZooKeeper connection gives leadership up at once: another candidate may be
 * elected while this one cannot see ZooKeeper, and two leaders must never both act.
 */
public final class LeaderElection implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  public enum State { LATENT, STARTED, CLOSED }

  /** LeaderLatch names its nodes {@code ..latch-<sequence>}. */
  static final String LATCH_PREFIX = LeaderAddress.LATCH_PREFIX;

  /** Hears leadership changes; called on the executor given to the election. */
  public interface Listener {
    void isLeader();

    void notLeader();
  }

  private final CuratorFramework client;
  private final String latchPath;
  private final String participantId;
  private final Executor listenerExecutor;
  private final LeaderLatch latch;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final AtomicBoolean leader = new AtomicBoolean(false);
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final ConnectionStateListener connectionListener = this::onConnectionState;

  /**
   * @param client           a started Curator client
   * @param appId            the YARN application id; names the job's ZooKeeper subtree
   * @param participantId    this candidate's coordinator address, {@code host:port}
   * @param listenerExecutor where listeners run
   */
  public LeaderElection(CuratorFramework client, String appId, String participantId,
      Executor listenerExecutor) {
    this.client = client;
    this.latchPath = latchPath(appId);
    this.participantId = participantId;
    this.listenerExecutor = listenerExecutor;
    this.latch = new LeaderLatch(client, latchPath, participantId, LeaderLatch.CloseMode.SILENT);
  }

  /** {@code /edl/<appId>/leader}. */
  public static String latchPath(String appId) {
    return JobPaths.leader(appId);
  }

  /** This candidate's node in the election; null before it joined or after it left. */
  public String ourPath() {
    return state.get() == State.STARTED ? latch.getOurPath() : null;
  }

  /** Must be called before {@link #start()} to hear the first election. */
  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  public void removeListener(Listener listener) {
    listeners.remove(listener);
  }

  /** Joins the election. Fails if already started or closed. */
  public void start() throws Exception {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("leader election cannot be started twice (state " + state.get() + ")");
    }
    client.getConnectionStateListenable().addListener(connectionListener);
    // The latch's own callbacks only flip our flag; ours decide whether that is an edge.
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        setLeader(true);
      }

      @Override
      public void notLeader() {
        setLeader(false);
      }
    }, Runnable::run);
    latch.start();
    LOG.info("Candidate {} joined the election at {}", participantId, latchPath);
  }

  public State state() {
    return state.get();
  }

  public String participantId() {
    return participantId;
  }

  /** True only while started, connected and elected. */
  public boolean hasLeadership() {
    return state.get() == State.STARTED && leader.get();
  }

  /**
   * The coordinator address of the elected leader, waiting (on ZooKeeper watches, not by
   * polling) until one is elected.
   *
   * @throws TimeoutException when nobody is elected within {@code timeout}
   */
  public String currentLeaderAddress(Duration timeout) throws Exception {
    return leaderAddress(client, latchPath, timeout);
  }

  /**
   * The coordinator address of a leader other than {@code previous}: after a leader announced
   * that it leaves, the others wait here until its latch node is gone and a successor is elected.
   */
  public String leaderAddressOtherThan(String previous, Duration timeout) throws Exception {
    return leaderAddressOtherThan(client, latchPath, previous, timeout);
  }

  /** The same look-up for a process that is not a candidate itself. */
  public static String leaderAddressOtherThan(CuratorFramework client, String latchPath, String previous,
      Duration timeout) throws Exception {
    return LeaderAddress.awaitOtherThan(client, latchPath, previous, timeout);
  }

  /** The same look-up for a process that is not a candidate itself. */
  public static String leaderAddress(CuratorFramework client, String latchPath, Duration timeout)
      throws Exception {
    return LeaderAddress.await(client, latchPath, timeout);
  }

  /** Leaves the election; listeners hear {@code notLeader} if this candidate was the leader. */
  @Override
  public void close() throws IOException {
    if (!state.compareAndSet(State.STARTED, State.CLOSED)) {
      state.compareAndSet(State.LATENT, State.CLOSED);
      return;
    }
    client.getConnectionStateListenable().removeListener(connectionListener);
    try {
      latch.close();
    } finally {
      setLeader(false);
      LOG.info("Candidate {} left the election", participantId);
    }
  }

  private void onConnectionState(CuratorFramework c, ConnectionState newState) {
    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
      LOG.warn("ZooKeeper connection {}: {} gives up leadership", newState, participantId);
      setLeader(false);
    }
  }

  private void setLeader(boolean now) {
    if (now && state.get() != State.STARTED) {
      return;
    }
    if (leader.getAndSet(now) == now) {
      return;
    }
    LOG.info("{} {} leader", participantId, now ? "is now" : "is no longer");
    for (Listener l : listeners) {
      listenerExecutor.execute(() -> {
        if (now) {
          l.isLeader();
        } else {
          l.notLeader();
        }
      });
    }
  }
}
