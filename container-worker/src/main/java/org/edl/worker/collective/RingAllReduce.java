package org.edl.worker.collective;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import org.edl.job.JobSecret;

/**
 * Chunked, pipelined ring all-reduce (reduce-scatter, then all-gather) over a {@link Ring}, after
 * Gloo's {@code allreduce_ring_chunked}. One thread drives both links from one selector: while a
 * chunk is being reduced the kernel keeps both links moving, and a chunk of the next step
 * leaves as soon as the matching chunk of this step has arrived (see {@link RingSchedule}).
 *
 * <p>Floats travel little-endian (every platform we run on). A link to a peer on the same host
 * that agreed on shared memory when the ring was formed carries frames in a mapped segment
 * ({@link SharedMemoryFrames}: each element copied once on each side); any other link carries
 * them in the TCP stream ({@link SocketFrames}: through a direct staging buffer, and the kernel).
 * Every call starts with a small header frame (length and call number) so that members calling
 * with different lengths, or out of step, fail loudly instead of mixing data. After any failure,
 * including a timeout, the ring is unusable and must be formed again.
 */
public final class RingAllReduce implements AllReduce, AutoCloseable {
  public static final int DEFAULT_CHUNK_BYTES = 1 << 20;
  private static final int HEADER_BYTES = Integer.BYTES + Long.BYTES;

  private final Ring ring;
  private final Duration timeout;
  private final int chunkFloats;
  private final OutboundFrames out;
  private final InboundFrames in;
  private final float[] scratch;
  private final Selector selector;
  private final SelectionKey sendKey;
  private final SelectionKey recvKey;
  private long calls;
  private IOException broken;
  /** Set from another thread ({@link #abort}): the call in progress, or the next one, fails with it. */
  private volatile String aborted;

  public RingAllReduce(Ring ring, Duration timeout) throws IOException {
    this(ring, timeout, DEFAULT_CHUNK_BYTES);
  }

  /**
   * @param timeout    limit on each {@link #sum} call as a whole
   * @param chunkBytes the largest chunk in flight; smaller chunks pipeline better, larger ones
   *                   cost fewer system calls
   */
  public RingAllReduce(Ring ring, Duration timeout, int chunkBytes) throws IOException {
    if (chunkBytes < Float.BYTES || chunkBytes < HEADER_BYTES) {
      throw new IllegalArgumentException("chunkBytes=" + chunkBytes);
    }
    this.ring = ring;
    this.timeout = timeout;
    this.chunkFloats = chunkBytes / Float.BYTES;
    int bytes = Math.max(chunkFloats * Float.BYTES, HEADER_BYTES);
    this.scratch = new float[chunkFloats];
    if (ring.size() > 1) {
      this.out = ring.sharedOut() == null ? new SocketFrames.Outbound(ring.right(), bytes)
          : new SharedMemoryFrames.Outbound(ring.right(), fits(ring.sharedOut(), bytes));
      this.in = ring.sharedIn() == null ? new SocketFrames.Inbound(ring.left(), bytes)
          : new SharedMemoryFrames.Inbound(ring.left(), fits(ring.sharedIn(), bytes));
      this.selector = Selector.open();
      this.sendKey = ring.right().channel().register(selector, 0);
      this.recvKey = ring.left().channel().register(selector, 0);
    } else {
      this.out = null;
      this.in = null;
      this.selector = null;
      this.sendKey = null;
      this.recvKey = null;
    }
  }

  static SharedMemorySegment fits(SharedMemorySegment segment, int frameBytes) {
    if (segment.slotBytes() < frameBytes) {
      throw new IllegalArgumentException("chunks of " + frameBytes + " bytes do not fit the ring's shared-memory slots of "
          + segment.slotBytes() + "; form the ring with slots at least that large");
    }
    return segment;
  }

  @Override
  public int rank() {
    return ring.rank();
  }

  @Override
  public int size() {
    return ring.size();
  }

  @Override
  public void sum(float[] data) throws IOException {
    if (broken != null) {
      throw new IOException("ring all-reduce unusable after an earlier failure; form the ring again", broken);
    }
    if (aborted != null) {
      broken = new IOException("ring all-reduce aborted: " + aborted);
      throw broken;
    }
    long call = ++calls;
    if (ring.size() == 1) {
      return;
    }
    try (SharedMemorySegment.Lease held =
        SharedMemorySegment.lease("ring v" + ring.version(), ring.sharedOut(), ring.sharedIn())) {
      run(data, call);
    } catch (IOException e) {
      broken = e;
      throw e;
    }
  }

  private void run(float[] data, long call) throws IOException {
    RingSchedule schedule = new RingSchedule(data.length, ring.size(), ring.rank(),
        RingSchedule.chunksPerSegment(data.length, ring.size(), chunkFloats));
    Deadline deadline = Deadline.after(timeout);
    int frames = schedule.frames();
    // Frame -1 is the header; frames 0..frames-1 follow the schedule.
    int nextSend = -1;
    int nextRecv = -1;
    boolean sending = false;

    while (nextSend < frames || nextRecv < frames || out.pending() || in.pending() || !out.drained()) {
      boolean progress = false;

      boolean wantsRoom = !sending && nextSend < frames && mayLeave(schedule, nextSend, nextRecv);
      if (wantsRoom) {
        Frame f = out.claim(call);
        if (f != null) {
          out.commit(stage(f, data, schedule, nextSend, call));
          sending = true;
          wantsRoom = false;
        }
      }
      progress |= out.flush(call);
      if (sending && !out.pending()) {
        sending = false;
        nextSend++;
        progress = true;
      }

      if (nextRecv < frames) {
        progress |= in.receive(frameBytes(schedule, nextRecv), call);
        Frame f = in.frame();
        if (f != null) {
          consume(f, data, schedule, nextRecv, call);
          in.release();
          nextRecv++;
          progress = true;
        }
      }
      progress |= in.flush(call);

      if (!progress) {
        sendKey.interestOps(out.interestOps(wantsRoom));
        recvKey.interestOps(in.interestOps(nextRecv < frames));
        selector.select(deadline.remainingMillisOrThrow("ring all-reduce #" + call + " of "
            + data.length + " floats (rank " + ring.rank() + " of " + ring.size() + ")"));
        selector.selectedKeys().clear();
        Deadline.failIfInterrupted("ring all-reduce #" + call);
        if (aborted != null) {
          throw new IOException("ring all-reduce #" + call + " aborted: " + aborted);
        }
      }
    }
  }

  /** A frame may leave once the frame it forwards has arrived (the header never waits). */
  private static boolean mayLeave(RingSchedule schedule, int frame, int nextRecv) {
    if (frame < 0) {
      return true;
    }
    int waitsFor = schedule.sendWaitsFor(frame);
    return waitsFor < 0 || waitsFor < nextRecv;
  }

  /** Writes frame {@code frame} into {@code f}; returns its length in bytes. */
  private static int stage(Frame f, float[] data, RingSchedule schedule, int frame, long call) {
    if (frame < 0) {
      f.bytes().putInt(0, data.length).putLong(Integer.BYTES, call);
      return HEADER_BYTES;
    }
    RingSchedule.Range r = schedule.send(frame);
    f.floats().put(0, data, r.offset(), r.length());
    return r.length() * Float.BYTES;
  }

  private static int frameBytes(RingSchedule schedule, int frame) {
    return frame < 0 ? HEADER_BYTES : schedule.receive(frame).length() * Float.BYTES;
  }

  private void consume(Frame f, float[] data, RingSchedule schedule, int frame, long call) throws IOException {
    if (frame < 0) {
      int length = f.bytes().getInt(0);
      long theirCall = f.bytes().getLong(Integer.BYTES);
      if (length != data.length || theirCall != call) {
        throw new IOException("ring member " + ring.left().peerId() + " is in all-reduce #"
            + theirCall + " of " + length + " floats, but rank " + ring.rank()
            + " is in #" + call + " of " + data.length);
      }
      return;
    }
    RingSchedule.Range r = schedule.receive(frame);
    if (schedule.reduces(frame)) {
      GradientLoops.addFrame(f.floats(), scratch, data, r.offset(), r.length());
    } else {
      f.floats().get(0, data, r.offset(), r.length());
    }
  }

  /**
   * Makes the all-reduce in progress (or the next one) fail at once, from any thread: the leader
   * declared a member of this ring failed, and waiting for a hung member's data would only hold
   * the survivors until the timeout.
   */
  public void abort(String why) {
    aborted = why;
    Selector s = selector;
    if (s != null) {
      s.wakeup();
    }
  }

  /** Releases the selector; the ring's links stay open (they belong to the {@link Ring}). */
  @Override
  public void close() throws IOException {
    if (selector != null) {
      selector.close();
    }
  }
}
