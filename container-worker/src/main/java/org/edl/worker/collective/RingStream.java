package org.edl.worker.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
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
  private final FramePump sender;
  private final FramePump receiver;

  public RingStream(Ring ring, int frameBytes) throws IOException {
    if (ring.size() < 2 || ring.levels() != null) {
      throw new IllegalArgumentException("a ring of " + ring.size() + (ring.levels() != null ? " by host" : "")
          + " has no flat links; form it with Ring.Layout.FLAT");
    }
    this.ring = ring;
    this.frameBytes = frameBytes;
    this.out = ring.sharedOut() == null ? new SocketFrames.Outbound(ring.right(), frameBytes)
        : new SharedMemoryFrames.Outbound(ring.right(), RingAllReduce.fits(ring.sharedOut(), frameBytes));
    this.in = ring.sharedIn() == null ? new SocketFrames.Inbound(ring.left(), frameBytes)
        : new SharedMemoryFrames.Inbound(ring.left(), RingAllReduce.fits(ring.sharedIn(), frameBytes));
    this.sender = new FramePump(ring.right());
    this.receiver = new FramePump(ring.left());
  }

  /** Sends {@code src}'s remaining bytes to the right neighbour. */
  public void send(ByteBuffer src, Duration timeout) throws IOException {
    try (SharedMemorySegment.Lease held = SharedMemorySegment.lease("ring v" + ring.version(), ring.sharedOut())) {
      sender.send(out, frames(src.remaining()), (i, f) -> {
      int n = Math.min(frameBytes, src.remaining());
      f.bytes().put(0, src, src.position(), n);
      src.position(src.position() + n);
      return n;
    }, Deadline.after(timeout), "sending to " + ring.right().peerId());
    }
  }

  /** Fills {@code dst}'s remaining bytes from the left neighbour. */
  public void receive(ByteBuffer dst, Duration timeout) throws IOException {
    try (SharedMemorySegment.Lease held = SharedMemorySegment.lease("ring v" + ring.version(), ring.sharedIn())) {
      int total = dst.remaining();
    receiver.receive(in, frames(total), i -> Math.min(frameBytes, total - i * frameBytes), (i, f) -> {
      int n = Math.min(frameBytes, dst.remaining());
      dst.put(dst.position(), f.bytes(), 0, n);
      dst.position(dst.position() + n);
    }, Deadline.after(timeout), "receiving from " + ring.left().peerId());
    }
  }

  private int frames(int bytes) {
    return (bytes + frameBytes - 1) / frameBytes;
  }

  /** Releases the selectors; the links belong to the {@link Ring}. */
  @Override
  public void close() throws IOException {
    sender.close();
    receiver.close();
  }
}
