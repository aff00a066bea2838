package org.edl.worker.collective;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * Chunked, pipelined ring all-reduce (reduce-scatter, then all-gather) over a {@link Ring}, after
 * Gloo's {@code allreduce_ring_chunked}. One thread drives both links from one selector: while a
 * chunk is being reduced the kernel keeps both sockets moving, and a chunk of the next step
 * leaves as soon as the matching chunk of this step has arrived (see {@link RingSchedule}).
 *
 * <p>Floats travel little-endian (every platform we run on) through two direct staging buffers
 * allocated once, so each element is copied once into the socket and once out of it.
 * Every call starts with a small header (length and call number) so that members calling with
 * different lengths, or out of step, fail loudly instead of mixing data. After any failure,
 * including a timeout, the ring is unusable and must be formed again.
 */
public final class RingAllReduce implements AllReduce, AutoCloseable {
  public static final int DEFAULT_CHUNK_BYTES = 1 << 20;
  private static final int HEADER_BYTES = Integer.BYTES + Long.BYTES;

  private final Ring ring;
  private final Duration timeout;
  private final int chunkFloats;
  private final ByteBuffer sendBytes;
  private final ByteBuffer recvBytes;
  private final FloatBuffer sendFloats;
  private final FloatBuffer recvFloats;
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
    int bytes = chunkFloats * Float.BYTES;
    this.sendBytes = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    this.recvBytes = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    this.sendFloats = sendBytes.asFloatBuffer();
    this.recvFloats = recvBytes.asFloatBuffer();
    this.scratch = new float[chunkFloats];
    if (ring.size() > 1) {
      this.selector = Selector.open();
      this.sendKey = ring.right().channel().register(selector, 0);
      this.recvKey = ring.left().channel().register(selector, 0);
    } else {
      this.selector = null;
      this.sendKey = null;
      this.recvKey = null;
    }
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
    try {
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
    SocketChannel out = ring.right().channel();
    SocketChannel in = ring.left().channel();
    int frames = schedule.frames();
    // Frame -1 is the header; frames 0..frames-1 follow the schedule.
    int nextSend = -1;
    int nextRecv = -1;
    boolean sending = false;
    boolean receiving = false;

    while (nextSend < frames || nextRecv < frames) {
      boolean progress = false;

      if (!sending && nextSend < frames && mayLeave(schedule, nextSend, nextRecv)) {
        stageSend(data, schedule, nextSend, call);
        sending = true;
      }
      if (sending) {
        progress |= send(out, call) > 0;
        if (!sendBytes.hasRemaining()) {
          sending = false;
          nextSend++;
          progress = true;
        }
      }

      if (!receiving && nextRecv < frames) {
        stageReceive(schedule, nextRecv);
        receiving = true;
      }
      if (receiving) {
        int n = recvBytes.hasRemaining() ? receive(in, call) : 0;
        if (n < 0) {
          throw new BrokenLinkException(ring.left().peerId(), ring.left().peerId()
              + " closed the ring link during all-reduce #" + call, new EOFException());
        }
        progress |= n > 0;
        if (!recvBytes.hasRemaining()) {
          consume(data, schedule, nextRecv, call);
          receiving = false;
          nextRecv++;
          progress = true;
        }
      }

      if (!progress) {
        sendKey.interestOps(sending ? SelectionKey.OP_WRITE : 0);
        recvKey.interestOps(receiving ? SelectionKey.OP_READ : 0);
        selector.select(deadline.remainingMillisOrThrow("ring all-reduce #" + call + " of "
            + data.length + " floats (rank " + ring.rank() + " of " + ring.size() + ")"));
        selector.selectedKeys().clear();
        if (aborted != null) {
          throw new IOException("ring all-reduce #" + call + " aborted: " + aborted);
        }
      }
    }
  }

  /** Writes what the socket takes; a reset or closed connection names the right-hand peer. */
  private int send(SocketChannel out, long call) throws IOException {
    try {
      return out.write(sendBytes);
    } catch (java.nio.channels.ClosedChannelException e) {
      throw e; // this end closed it (an abort): no word about the peer
    } catch (IOException e) {
      throw new BrokenLinkException(ring.right().peerId(), "the ring link to " + ring.right().peerId()
          + " broke during all-reduce #" + call + ": " + e.getMessage(), e);
    }
  }

  /** Reads what has arrived; a reset connection names the left-hand peer (end of stream is -1). */
  private int receive(SocketChannel in, long call) throws IOException {
    try {
      return in.read(recvBytes);
    } catch (java.nio.channels.ClosedChannelException e) {
      throw e;
    } catch (IOException e) {
      throw new BrokenLinkException(ring.left().peerId(), "the ring link from " + ring.left().peerId()
          + " broke during all-reduce #" + call + ": " + e.getMessage(), e);
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

  private void stageSend(float[] data, RingSchedule schedule, int frame, long call) {
    sendBytes.clear();
    if (frame < 0) {
      sendBytes.putInt(data.length).putLong(call).flip();
      return;
    }
    RingSchedule.Range r = schedule.send(frame);
    sendFloats.put(0, data, r.offset(), r.length());
    sendBytes.limit(r.length() * Float.BYTES);
  }

  private void stageReceive(RingSchedule schedule, int frame) {
    recvBytes.clear();
    recvBytes.limit(frame < 0 ? HEADER_BYTES : schedule.receive(frame).length() * Float.BYTES);
  }

  private void consume(float[] data, RingSchedule schedule, int frame, long call) throws IOException {
    if (frame < 0) {
      int length = recvBytes.getInt(0);
      long theirCall = recvBytes.getLong(Integer.BYTES);
      if (length != data.length || theirCall != call) {
        throw new IOException("ring member " + ring.left().peerId() + " is in all-reduce #"
            + theirCall + " of " + length + " floats, but rank " + ring.rank()
            + " is in #" + call + " of " + data.length);
      }
      return;
    }
    RingSchedule.Range r = schedule.receive(frame);
    if (schedule.reduces(frame)) {
      recvFloats.get(0, scratch, 0, r.length());
      int off = r.offset();
      for (int i = 0, n = r.length(); i < n; i++) {
        data[off + i] += scratch[i];
      }
    } else {
      recvFloats.get(0, data, r.offset(), r.length());
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
