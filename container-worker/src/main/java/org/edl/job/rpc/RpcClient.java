package org.edl.job.rpc;

import java.time.Duration;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.edl.job.JobSecret;

/** Opens authenticated connections to an {@link RpcServer}. */
public final class RpcClient {
  private RpcClient() {}

  /**
   * Connects, passes the handshake, and returns a framed binary-protocol connection.
   *
   * @param timeout connect, handshake and per-read timeout; a call that blocks on the server
   *                (e.g. {@code awaitTopology}) needs a timeout longer than its own wait
   * @throws AuthenticationException the server does not accept this secret (or is not EDL)
   * @throws TTransportException     the server cannot be reached
   */
  public static RpcConnection open(String host, int port, JobSecret secret, Duration timeout)
      throws TTransportException, AuthenticationException {
    int ms = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    TSocket socket = new TSocket(new TConfiguration(), host, port, ms, ms);
    socket.open();
    try {
      new SecretHandshake(secret, timeout).asClient(socket.getSocket());
      TFramedTransport framed = new TFramedTransport(socket);
      return new RpcConnection(framed, new TBinaryProtocol(framed), host + ":" + port);
    } catch (AuthenticationException | TTransportException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }
}
