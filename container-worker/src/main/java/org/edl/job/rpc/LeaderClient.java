package org.edl.job.rpc;

import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.edl.job.HostPort;
import org.edl.job.JobPaths;
import org.edl.job.JobSecret;
import org.edl.job.LeaderAddress;
import org.edl.thrift.Coordinator;
import org.edl.thrift.EdlError;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;

/**
 * How a process outside the ring (the ApplicationMaster, a benchmark, a test) reaches a job's
 * leader: read the elected coordinator's address under {@code /edl/<appId>/leader}, connect with
 * the job's secret, and ask for the changes that come from outside: a worker's leave, a
 * replacement (migration) or its withdrawal, a stop for a restart. The workers' own calls (register,
 * sync, heartbeats, recovery) are not here: they stay in the worker runtime. Calls are serialised,
 * as Thrift clients allow one at a time.
 */
public final class LeaderClient implements AutoCloseable {
  private final RpcConnection connection;
  private final Coordinator.Client client;

  private LeaderClient(RpcConnection connection) {
    this.connection = connection;
    this.client = new Coordinator.Client(connection.protocol());
  }

  /**
   * Finds the elected leader of {@code appId} and connects to it.
   *
   * @param zk a started Curator client of the job's ZooKeeper
   * @throws java.util.concurrent.TimeoutException when no leader is elected within {@code timeout}
   * @throws AuthenticationException the leader refused this job secret
   */
  public static LeaderClient connect(CuratorFramework zk, String appId, JobSecret secret, Duration timeout)
      throws Exception {
    String address = LeaderAddress.await(zk, JobPaths.leader(appId), timeout);
    HostPort hp = HostPort.parse(address);
    return new LeaderClient(RpcClient.open(hp.host(), hp.port(), secret, timeout));
  }

  /** {@code host:port} of the leader this client talks to. */
  public String leaderAddress() {
    return connection.peer();
  }

  /** A graceful scale-in of {@code workerId} at a step the leader picks. */
  public synchronized SwitchOrder leave(String workerId) throws TException {
    return client.leave(workerId);
  }

  /** A migration: {@code leavers} go at the switch that admits {@code joiners} newcomers. */
  public synchronized SwitchOrder replace(List<String> leavers, int joiners) throws TException {
    return client.replace(leavers, joiners);
  }

  /** Withdraws a {@link #replace} whose newcomers never came; false if there was none. */
  public synchronized boolean cancelReplace(List<String> leavers) throws TException {
    return client.cancelReplace(leavers);
  }

  /** Stop-resume: every worker stops after one step, the leader writing a checkpoint into {@code directory}. */
  public synchronized StopOrder stopForRestart(String directory) throws TException {
    return client.stopForRestart(directory);
  }

  @Override
  public void close() {
    connection.close();
  }

  /** Whether {@code e} is the leader saying it is not (yet) the leader: worth a retry. */
  public static boolean isNotLeader(Exception e) {
    return (e instanceof EdlError err && "coordinator".equals(err.getField()))
        || (e instanceof TApplicationException app && "not the leader".equals(app.getMessage()));
  }
}
