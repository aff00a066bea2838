package org.edl.worker.collective;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/** Non-blocking reads and writes on a ring link whose failures name the peer at the other end. */
final class LinkIo {
  private LinkIo() {}

  /** Writes what the socket takes; a reset or closed connection names the peer. */
  static int write(PeerLink link, ByteBuffer src, long call) throws IOException {
    try {
      return link.channel().write(src);
    } catch (ClosedChannelException e) {
      throw e; // this end closed it (an abort): no word about the peer
    } catch (IOException e) {
      throw new BrokenLinkException(link.peerId(), "the ring link to " + link.peerId()
          + " broke during all-reduce #" + call + ": " + e.getMessage(), e);
    }
  }

  /** Reads what has arrived; the end of the stream or a reset connection names the peer. */
  static int read(PeerLink link, ByteBuffer dst, long call) throws IOException {
    int n;
    try {
      n = link.channel().read(dst);
    } catch (ClosedChannelException e) {
      throw e;
    } catch (IOException e) {
      throw new BrokenLinkException(link.peerId(), "the ring link with " + link.peerId()
          + " broke during all-reduce #" + call + ": " + e.getMessage(), e);
    }
    if (n < 0) {
      throw new BrokenLinkException(link.peerId(), link.peerId()
          + " closed the ring link during all-reduce #" + call, new EOFException());
    }
    return n;
  }
}
