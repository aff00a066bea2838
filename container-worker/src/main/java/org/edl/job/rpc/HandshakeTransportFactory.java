package org.edl.job.rpc;

import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.TTransportFactory;
import org.apache.thrift.transport.layered.TFramedTransport;

/**
 * The server's input-transport factory. {@code TThreadPoolServer} calls it on the connection's
 * worker thread, so a slow or hostile peer holds up only its own thread, never the accept loop.
 * It also remembers open sockets so that closing the server ends idle connections at once.
 */
final class HandshakeTransportFactory extends TTransportFactory {
  /** Thrift's own limit on a framed message. */
  static final int DEFAULT_MAX_FRAME_BYTES = 16_384_000;
  private final SecretHandshake handshake;
  private final int maxFrameBytes;
  private final RefusalListener listener;
  private final AtomicLong refused = new AtomicLong();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  HandshakeTransportFactory(SecretHandshake handshake, RefusalListener listener) {
    this(handshake, listener, DEFAULT_MAX_FRAME_BYTES);
  }

  HandshakeTransportFactory(SecretHandshake handshake, RefusalListener listener, int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
    this.handshake = handshake;
    this.listener = listener;
  }

  @Override
  public TTransport getTransport(TTransport base) throws TTransportException {
    Socket socket = ((TSocket) base).getSocket();
    open.add(socket);
    try {
      handshake.asServer(socket);
    } catch (AuthenticationException e) {
      refused.incrementAndGet();
      listener.refused(e.peer(), e);
      open.remove(socket);
      // END_OF_FILE keeps TThreadPoolServer from logging a second, louder error for a refusal
      // the handshake has already logged.
      throw new TTransportException(TTransportException.END_OF_FILE, e.getMessage(), e);
    }
    // Thrift also caps the bytes one message may consume from the socket (100 MB by default).
    base.getConfiguration().setMaxMessageSize(Math.max(base.getConfiguration().getMaxMessageSize(), maxFrameBytes));
    return new TrackedFramedTransport(base, socket, maxFrameBytes);
  }

  long refusedCount() {
    return refused.get();
  }

  /** Ends every open connection's reads: its thread sees the end of the stream and closes it. */
  void endReads() {
    for (Socket s : open) {
      try {
        s.shutdownInput();
      } catch (java.io.IOException ignored) {
        // closed meanwhile
      }
    }
  }

  void closeAll() {
    for (Socket s : open) {
      try {
        s.close();
      } catch (java.io.IOException ignored) {
        // closing anyway
      }
    }
    open.clear();
  }

  /** Forgets its socket when Thrift closes the connection. */
  private final class TrackedFramedTransport extends TFramedTransport {
    private final Socket socket;

    TrackedFramedTransport(TTransport base, Socket socket, int maxFrameBytes) throws TTransportException {
      super(base, maxFrameBytes);
      this.socket = socket;
    }

    @Override
    public void close() {
      open.remove(socket);
      super.close();
    }
  }
}
