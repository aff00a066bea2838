package org.edl.worker.collective;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * Drives one {@link Ring}'s two links from one selector through the frames of a
 * {@link RingSchedule}: all of them (an all-reduce), or only the reduce-scatter or the all-gather
 * half, which a {@link RingAllReduce} over hosts runs on its ring inside a host. While a chunk is
 * being reduced the kernel keeps both links moving, and a chunk of the next step leaves as soon as
 * the matching chunk of this step has arrived.
 *
 * <p>Every call starts with a small header frame (length and call number) so that members calling
 * with different lengths, or out of step, fail loudly instead of mixing data.
 */
final class RingPass implements AutoCloseable {
  static final int HEADER_BYTES = Integer.BYTES + Long.BYTES;

  /** Which frames of the schedule a call moves. */
  enum Half {
    BOTH, REDUCE_SCATTER, ALL_GATHER;

    int first(RingSchedule s) {
      return this == ALL_GATHER ? s.reduceScatterFrames() : 0;
    }

    int end(RingSchedule s) {
      return this == REDUCE_SCATTER ? s.reduceScatterFrames() : s.frames();
    }
  }

  private final Ring ring;
  private final int chunkFloats;
  private final OutboundFrames out;
  private final InboundFrames in;
  private final float[] scratch;
  private final Selector selector;
  private final SelectionKey sendKey;
  private final SelectionKey recvKey;
  private long calls;
  /** Set from another thread ({@link #abort}): the call in progress, or the next one, fails with it. */
  private volatile String aborted;

  RingPass(Ring ring, int chunkFloats) throws IOException {
    if (ring.size() < 2) {
      throw new IllegalArgumentException("a ring of " + ring.size() + " has no links to drive");
    }
    this.ring = ring;
    this.chunkFloats = chunkFloats;
    int bytes = Math.max(chunkFloats * Float.BYTES, HEADER_BYTES);
    this.scratch = new float[chunkFloats];
    this.out = ring.sharedOut() == null ? new SocketFrames.Outbound(ring.right(), bytes)
        : new SharedMemoryFrames.Outbound(ring.right(), RingAllReduce.fits(ring.sharedOut(), bytes));
    this.in = ring.sharedIn() == null ? new SocketFrames.Inbound(ring.left(), bytes)
        : new SharedMemoryFrames.Inbound(ring.left(), RingAllReduce.fits(ring.sharedIn(), bytes));
    this.selector = Selector.open();
    this.sendKey = ring.right().channel().register(selector, 0);
    this.recvKey = ring.left().channel().register(selector, 0);
  }

  Ring ring() {
    return ring;
  }

  /** The schedule of a call over {@code length} elements on this ring. */
  RingSchedule schedule(int length) {
    return new RingSchedule(length, ring.size(), ring.rank(),
        RingSchedule.chunksPerSegment(length, ring.size(), chunkFloats));
  }

  /**
   * Moves {@code half} of the schedule over {@code data[offset, offset + length)}, holding the
   * ring's shared-memory segments while it runs.
   */
  void run(float[] data, int offset, int length, Half half, Deadline deadline) throws IOException {
    long call = ++calls;
    try (SharedMemorySegment.Lease held =
        SharedMemorySegment.lease("ring v" + ring.version(), ring.sharedOut(), ring.sharedIn())) {
      move(data, offset, length, half, call, deadline);
    }
  }

  private void move(float[] data, int offset, int length, Half half, long call, Deadline deadline) throws IOException {
    RingSchedule schedule = schedule(length);
    int first = half.first(schedule);
    int end = half.end(schedule);
    // Frame first-1 stands for the header; frames first..end-1 follow the schedule.
    int header = first - 1;
    int nextSend = header;
    int nextRecv = header;
    boolean sending = false;

    while (nextSend < end || nextRecv < end || out.pending() || in.pending() || !out.drained()) {
      boolean progress = false;

      boolean wantsRoom = !sending && nextSend < end && mayLeave(schedule, nextSend, nextRecv, first);
      if (wantsRoom) {
        Frame f = out.claim(call);
        if (f != null) {
          out.commit(nextSend == header ? stageHeader(f, length, call) : stage(f, data, offset, schedule, nextSend));
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

      if (nextRecv < end) {
        int bytes = nextRecv == header ? HEADER_BYTES : schedule.receive(nextRecv).length() * Float.BYTES;
        progress |= in.receive(bytes, call);
        Frame f = in.frame();
        if (f != null) {
          if (nextRecv == header) {
            checkHeader(f, length, call);
          } else {
            consume(f, data, offset, schedule, nextRecv);
          }
          in.release();
          nextRecv++;
          progress = true;
        }
      }
      progress |= in.flush(call);

      if (!progress) {
        try {
          sendKey.interestOps(out.interestOps(wantsRoom));
          recvKey.interestOps(in.interestOps(nextRecv < end));
        } catch (CancelledKeyException e) {
          // The ring was closed by another thread (a worker stopped from outside).
          throw new IOException("ring all-reduce #" + call + ": the ring was closed under it", e);
        }
        selector.select(deadline.remainingMillisOrThrow("ring all-reduce #" + call + " of "
            + length + " floats (rank " + ring.rank() + " of " + ring.size() + ")"));
        selector.selectedKeys().clear();
        Deadline.failIfInterrupted("ring all-reduce #" + call);
        if (aborted != null) {
          throw new IOException("ring all-reduce #" + call + " aborted: " + aborted);
        }
      }
    }
  }

  /**
   * A frame may leave once the frame it forwards has arrived; the header never waits, nor does a
   * frame forwarding what an earlier half of the schedule already left here.
   */
  private static boolean mayLeave(RingSchedule schedule, int frame, int nextRecv, int first) {
    if (frame < first) {
      return true;
    }
    int waitsFor = schedule.sendWaitsFor(frame);
    return waitsFor < first || waitsFor < nextRecv;
  }

  private static int stageHeader(Frame f, int length, long call) {
    f.bytes().putInt(0, length).putLong(Integer.BYTES, call);
    return HEADER_BYTES;
  }

  /** Writes frame {@code frame} into {@code f}; returns its length in bytes. */
  private static int stage(Frame f, float[] data, int offset, RingSchedule schedule, int frame) {
    RingSchedule.Range r = schedule.send(frame);
    f.floats().put(0, data, offset + r.offset(), r.length());
    return r.length() * Float.BYTES;
  }

  private void checkHeader(Frame f, int length, long call) throws IOException {
    int theirLength = f.bytes().getInt(0);
    long theirCall = f.bytes().getLong(Integer.BYTES);
    if (theirLength != length || theirCall != call) {
      throw new IOException("ring member " + ring.left().peerId() + " is in all-reduce #"
          + theirCall + " of " + theirLength + " floats, but rank " + ring.rank()
          + " is in #" + call + " of " + length);
    }
  }

  private void consume(Frame f, float[] data, int offset, RingSchedule schedule, int frame) {
    RingSchedule.Range r = schedule.receive(frame);
    if (schedule.reduces(frame)) {
      GradientLoops.addFrame(f.floats(), scratch, data, offset + r.offset(), r.length());
    } else {
      f.floats().get(0, data, offset + r.offset(), r.length());
    }
  }

  /** Makes the call in progress, or the next one, fail at once, from any thread. */
  void abort(String why) {
    aborted = why;
    selector.wakeup();
  }

  /** Releases the selector; the ring's links stay open (they belong to the {@link Ring}). */
  @Override
  public void close() throws IOException {
    selector.close();
  }
}
