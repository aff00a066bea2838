package org.edl.job.rpc;

import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.TTransport;

/**
 * An open, authenticated Thrift connection. Build any generated client on {@link #protocol()}
 * ({@code new Coordinator.Client(conn.protocol())}); one caller at a time, like Thrift's clients.
 */
public final class RpcConnection implements AutoCloseable {
  private final TTransport transport;
  private final TProtocol protocol;
  private final String peer;

  RpcConnection(TTransport transport, TProtocol protocol, String peer) {
    this.transport = transport;
    this.protocol = protocol;
    this.peer = peer;
  }

  public TProtocol protocol() {
    return protocol;
  }

  /** {@code host:port} this connection goes to. */
  public String peer() {
    return peer;
  }

  public boolean isOpen() {
    return transport.isOpen();
  }

  @Override
  public void close() {
    transport.close();
  }
}
