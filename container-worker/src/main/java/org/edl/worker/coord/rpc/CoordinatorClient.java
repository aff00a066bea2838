package org.edl.worker.coord.rpc;

import java.time.Duration;
import java.util.List;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;
import org.edl.job.HostPort;
import org.edl.job.JobSecret;
import org.edl.job.rpc.AuthenticationException;
import org.edl.job.rpc.LeaderClient;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.thrift.Coordinator;
import org.edl.thrift.EdlError;
import org.edl.thrift.Registration;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.coord.CoordinatorState;

/**
 * A worker's authenticated connection to the leader's {@link CoordinatorService}. Thrift
 * clients allow one call at a time, so calls are serialised here; a worker that needs to long
 * poll and sync at once opens two.
 */
public final class CoordinatorClient implements Coordinator.Iface, AutoCloseable {
  private final RpcConnection connection;
  private final Coordinator.Client client;

  private CoordinatorClient(RpcConnection connection) {
    this.connection = connection;
    this.client = new Coordinator.Client(connection.protocol());
  }

  /**
   * Connects to {@code address} ({@code host:port}, as the leader election publishes it).
   *
   * @param timeout connect, handshake and read timeout; longer than any awaitTopology wait
   * @throws AuthenticationException the leader refused this job secret
   */
  public static CoordinatorClient connect(String address, JobSecret secret, Duration timeout)
      throws TTransportException, AuthenticationException {
    HostPort hp = HostPort.parse(address);
    return new CoordinatorClient(RpcClient.open(hp.host(), hp.port(), secret, timeout));
  }

  /** {@code host:port} of the leader this client talks to. */
  public String leaderAddress() {
    return connection.peer();
  }

  @Override
  public synchronized Registration registerWorker(WorkerInfo worker) throws TException {
    return client.registerWorker(worker);
  }

  @Override
  public synchronized void ready(String workerId, long topologyVersion) throws TException {
    client.ready(workerId, topologyVersion);
  }

  @Override
  public synchronized SwitchOrder awaitSwitch(String workerId, long topologyVersion, int timeoutMs)
      throws TException {
    return client.awaitSwitch(workerId, topologyVersion, timeoutMs);
  }

  @Override
  public synchronized Topology awaitTopology(long afterVersion, int timeoutMs) throws TException {
    return client.awaitTopology(afterVersion, timeoutMs);
  }

  @Override
  public synchronized SyncReply sync(SyncReport report) throws TException {
    return client.sync(report);
  }

  @Override
  public synchronized SwitchOrder leave(String workerId) throws TException {
    return client.leave(workerId);
  }

  @Override
  public synchronized SwitchOrder replace(List<String> leavers, int joiners) throws TException {
    return client.replace(leavers, joiners);
  }

  @Override
  public synchronized boolean cancelReplace(List<String> leavers) throws TException {
    return client.cancelReplace(leavers);
  }

  @Override
  public synchronized org.edl.thrift.StopOrder stopForRestart(String directory) throws TException {
    return client.stopForRestart(directory);
  }

  @Override
  public synchronized org.edl.thrift.HeartbeatReply heartbeat(String workerId, long leaderEpoch, long ringVersion)
      throws TException {
    return client.heartbeat(workerId, leaderEpoch, ringVersion);
  }

  @Override
  public synchronized org.edl.thrift.HeartbeatReply heartbeatAwaiting(String workerId, long leaderEpoch,
      long ringVersion, long knownSwitch, int holdMs) throws TException {
    return client.heartbeatAwaiting(workerId, leaderEpoch, ringVersion, knownSwitch, holdMs);
  }

  @Override
  public synchronized org.edl.thrift.FinishReply awaitFinish(String workerId, long lastStep, int timeoutMs)
      throws TException {
    return client.awaitFinish(workerId, lastStep, timeoutMs);
  }

  @Override
  public synchronized org.edl.thrift.RecoveryOrder awaitRecovery(String workerId, long lastCompletedStep,
      long nextBatchStart, int timeoutMs, java.util.List<String> brokenLinks) throws TException {
    return client.awaitRecovery(workerId, lastCompletedStep, nextBatchStart, timeoutMs, brokenLinks);
  }

  @Override
  public void close() {
    connection.close();
  }

  /** Whether {@code e} is the leader refusing a worker it declared failed: no retry can help. */
  public static boolean isFenced(Throwable e) {
    return e instanceof EdlError err && "workerId".equals(err.getField()) && err.getMessage() != null
        && err.getMessage().contains(CoordinatorState.FENCED);
  }

  /** Whether {@code e} is the leader saying it is not (yet) the leader: worth a retry. */
  public static boolean isNotLeader(Exception e) {
    return LeaderClient.isNotLeader(e);
  }
}
