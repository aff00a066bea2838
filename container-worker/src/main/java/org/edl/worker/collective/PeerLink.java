package org.edl.worker.collective;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * One authenticated, non-blocking TCP connection to one peer (Gloo's "pair"). Whole-buffer reads
 * and writes wait on a selector so that every wait has a deadline. One thread uses a link at a
 * time; each direction of a ring uses its own link.
 */
public final class PeerLink implements AutoCloseable {
  private final SocketChannel channel;
  private final ConnectionHeader header;
  private final String peerId;
  private Selector selector;

  PeerLink(SocketChannel channel, ConnectionHeader header, String peerId) throws IOException {
    this.channel = channel;
    this.header = header;
    this.peerId = peerId;
    channel.configureBlocking(false);
  }

  /** The worker at the other end. */
  public String peerId() {
    return peerId;
  }

  public String tag() {
    return header.tag();
  }

  public long topologyVersion() {
    return header.topologyVersion();
  }

  SocketChannel channel() {
    return channel;
  }

  /** Writes all of {@code src}, waiting at most {@code timeout}. */
  public void write(ByteBuffer src, Duration timeout) throws IOException {
    write(src, Deadline.after(timeout));
  }

  /** Fills {@code dst}, waiting at most {@code timeout}; end of stream is an {@link EOFException}. */
  public void read(ByteBuffer dst, Duration timeout) throws IOException {
    read(dst, Deadline.after(timeout));
  }

  void write(ByteBuffer src, Deadline deadline) throws IOException {
    while (src.hasRemaining()) {
      if (channel.write(src) == 0) {
        await(SelectionKey.OP_WRITE, deadline, "sending to " + peerId);
      }
    }
  }

  void read(ByteBuffer dst, Deadline deadline) throws IOException {
    while (dst.hasRemaining()) {
      int n = channel.read(dst);
      if (n < 0) {
        throw new EOFException(peerId + " closed the connection (" + header.tag() + ")");
      }
      if (n == 0) {
        await(SelectionKey.OP_READ, deadline, "receiving from " + peerId);
      }
    }
  }

  private void await(int op, Deadline deadline, String what) throws IOException {
    if (selector == null) {
      selector = Selector.open();
    }
    SelectionKey key = channel.keyFor(selector);
    if (key == null) {
      key = channel.register(selector, op);
    } else {
      key.interestOps(op);
    }
    selector.select(deadline.remainingMillisOrThrow(what));
    selector.selectedKeys().clear();
    Deadline.failIfInterrupted(what);
  }

  @Override
  public void close() {
    try {
      if (selector != null) {
        selector.close();
      }
      channel.close();
    } catch (IOException ignored) {
      // nothing left to do with a link being dropped
    }
  }

  @Override
  public String toString() {
    return "PeerLink(" + peerId + ", " + header.tag() + ", v" + header.topologyVersion() + ")";
  }
}
