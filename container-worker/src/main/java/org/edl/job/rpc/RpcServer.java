package org.edl.job.rpc;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.edl.job.JobSecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Thrift service (any generated {@code Processor}) on a plain socket, framed binary protocol,
 * one pooled thread per connection, at most {@code maxConnections} of them: a connection beyond
 * that is closed at once (Thrift logs "ThreadPool is saturated"), so that a flood of peers costs
 * no more than that many threads. Every connection must pass the {@link SecretHandshake} within
 * the handshake timeout before its first call; refused peers are logged, counted and reported to
 * a listener.
 */
public final class RpcServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
  /** Connections served at once unless a server says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = 64;
  /**
   * How long an unauthenticated peer may take to pass the handshake: a real one needs
   * milliseconds; a silent one holds a thread until then.
   */
  public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  private final String name;
  private final TServerSocket serverSocket;
  private final TThreadPoolServer server;
  private final HandshakeTransportFactory transports;
  private final Thread serveThread;

  private RpcServer(String name, TServerSocket serverSocket, TThreadPoolServer server,
      HandshakeTransportFactory transports) {
    this.name = name;
    this.serverSocket = serverSocket;
    this.server = server;
    this.transports = transports;
    this.serveThread = new Thread(server::serve, "rpc-" + name + "-accept");
    this.serveThread.setDaemon(true);
  }

  /**
   * Binds {@code host:port} (port 0: an ephemeral one, see {@link #port()}) and starts serving.
   *
   * @param name             for thread names and logs ("coordinator", "job-control")
   * @param handshakeTimeout how long a new connection has to complete the handshake
   */
  public static RpcServer start(String name, TProcessor processor, String host, int port,
      JobSecret secret, Duration handshakeTimeout, RefusalListener listener)
      throws TTransportException {
    return start(name, processor, host, port, secret, handshakeTimeout, DEFAULT_MAX_CONNECTIONS, listener);
  }

  /** As above, serving at most {@code maxConnections} connections at once. */
  public static RpcServer start(String name, TProcessor processor, String host, int port,
      JobSecret secret, Duration handshakeTimeout, int maxConnections, RefusalListener listener)
      throws TTransportException {
    return start(name, processor, host, port, secret, handshakeTimeout, maxConnections, listener,
        HandshakeTransportFactory.DEFAULT_MAX_FRAME_BYTES);
  }

  /** As above, taking messages of up to {@code maxFrameBytes} (Thrift's default: about 16 MB). */
  public static RpcServer start(String name, TProcessor processor, String host, int port,
      JobSecret secret, Duration handshakeTimeout, int maxConnections, RefusalListener listener, int maxFrameBytes)
      throws TTransportException {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1: " + maxConnections);
    }
    TServerSocket socket = new TServerSocket(new TServerSocket.ServerSocketTransportArgs()
        .bindAddr(new InetSocketAddress(host, port)));
    HandshakeTransportFactory transports =
        new HandshakeTransportFactory(new SecretHandshake(secret, handshakeTimeout), listener, maxFrameBytes);
    TThreadPoolServer.Args args = new TThreadPoolServer.Args(socket)
        .processor(processor)
        .inputTransportFactory(transports)
        .outputTransportFactory(new TFramedTransport.Factory(maxFrameBytes))
        .protocolFactory(new TBinaryProtocol.Factory())
        .minWorkerThreads(1)
        .maxWorkerThreads(maxConnections)
        .stopTimeoutVal(2)
        .stopTimeoutUnit(TimeUnit.SECONDS);
    RpcServer rpc = new RpcServer(name, socket, new TThreadPoolServer(args), transports);
    rpc.serveThread.start();
    LOG.info("{} serving Thrift on {}:{} (at most {} connections)", name, host, rpc.port(), maxConnections);
    return rpc;
  }

  /** The bound port (the ephemeral one when started with port 0). */
  public int port() {
    return serverSocket.getServerSocket().getLocalPort();
  }

  /** Connections refused by the handshake since start. */
  public long refusedCount() {
    return transports.refusedCount();
  }

  /** Stops accepting, ends open connections, and waits for the accept loop to finish. */
  @Override
  public void close() {
    server.stop();
    // A socket closed under a blocked read makes Thrift log a SocketException with its stack trace
    // (at the end of every job whose client follows it). Ending the reads first lets each
    // connection's thread see the end of its stream and go quietly; the accept loop waits for
    // them (the stop timeout), and whatever is still open after that is closed.
    transports.endReads();
    try {
      serveThread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    transports.closeAll();
    LOG.info("{} stopped", name);
  }
}
