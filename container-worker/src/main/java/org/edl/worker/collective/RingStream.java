package org.edl.worker.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;

/**
 * Bytes sent to the right neighbour of a {@link Ring}, and received from the left one, in frames
 * over the same transport its all-reduce uses (shared memory or TCP): the most one of the ring's
 * links can carry, with no float conversion and no reduction, which is what a ring all-reduce is
 * measured against. Driven by one thread per end.
 */
public final class RingStream implements AutoCloseable {
  private final Ring ring;
  private final int frameBytes;
  private final OutboundFrames out;
  private final InboundFrames in;
  private final Selector selector;
  private final SelectionKey sendKey;
  private final SelectionKey recvKey;
  private long calls;

  public RingStream(Ring ring, int frameBytes) throws IOException {
    if (ring.size() < 2) {
      throw new IllegalArgumentException("a ring of " + ring.size() + " has no links");
    }
    this.ring = ring;
    this.frameBytes = frameBytes;
    this.out = ring.sharedOut() == null ? new SocketFrames.Outbound(ring.right(), frameBytes)
        : new SharedMemoryFrames.Outbound(ring.right(), RingAllReduce.fits(ring.sharedOut(), frameBytes));
    this.in = ring.sharedIn() == null ? new SocketFrames.Inbound(ring.left(), frameBytes)
        : new SharedMemoryFrames.Inbound(ring.left(), RingAllReduce.fits(ring.sharedIn(), frameBytes));
    this.selector = Selector.open();
    this.sendKey = ring.right().channel().register(selector, 0);
    this.recvKey = ring.left().channel().register(selector, 0);
  }

  /** Sends {@code src}'s remaining bytes to the right neighbour. */
  public void send(ByteBuffer src, Duration timeout) throws IOException {
    Deadline deadline = Deadline.after(timeout);
    long call = ++calls;
    boolean sending = false;
    while (src.hasRemaining() || out.pending() || !out.drained()) {
      boolean progress = false;
      boolean wantsRoom = !sending && src.hasRemaining();
      if (wantsRoom) {
        Frame f = out.claim(call);
        if (f != null) {
          int n = Math.min(frameBytes, src.remaining());
          f.bytes().put(0, src, src.position(), n);
          src.position(src.position() + n);
          out.commit(n);
          sending = true;
          wantsRoom = false;
        }
      }
      progress |= out.flush(call);
      if (sending && !out.pending()) {
        sending = false;
        progress = true;
      }
      if (!progress) {
        sendKey.interestOps(out.interestOps(wantsRoom));
        recvKey.interestOps(0);
        await(deadline, "sending to " + ring.right().peerId());
      }
    }
  }

  /** Fills {@code dst}'s remaining bytes from the left neighbour. */
  public void receive(ByteBuffer dst, Duration timeout) throws IOException {
    Deadline deadline = Deadline.after(timeout);
    long call = ++calls;
    while (dst.hasRemaining() || in.pending()) {
      boolean progress = false;
      if (dst.hasRemaining()) {
        int n = Math.min(frameBytes, dst.remaining());
        progress |= in.receive(n, call);
        Frame f = in.frame();
        if (f != null) {
          dst.put(dst.position(), f.bytes(), 0, n);
          dst.position(dst.position() + n);
          in.release();
          progress = true;
        }
      }
      progress |= in.flush(call);
      if (!progress) {
        sendKey.interestOps(0);
        recvKey.interestOps(in.interestOps(dst.hasRemaining()));
        await(deadline, "receiving from " + ring.left().peerId());
      }
    }
  }

  private void await(Deadline deadline, String what) throws IOException {
    selector.select(deadline.remainingMillisOrThrow(what));
    selector.selectedKeys().clear();
  }

  /** Releases the selector; the links belong to the {@link Ring}. */
  @Override
  public void close() throws IOException {
    selector.close();
  }
}
