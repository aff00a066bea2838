package org.edl.worker.collective;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Chunked, pipelined ring all-reduce (reduce-scatter, then all-gather) over a {@link Ring}, after
 * Gloo's {@code allreduce_ring_chunked}; each ring's links are driven by a {@link RingPass}.
 *
 * <p>Where the ring's members share hosts ({@link Ring#levels}), it is an all-reduce over hosts,
 * as NCCL's and Horovod's hierarchical ones: a reduce-scatter on the ring inside this member's host
 * leaves it one host-wide segment, the ring across the hosts through the members holding the same
 * segment all-reduces it, and an all-gather inside the host hands every member the rest. Each
 * host's link then carries {@code 2(h-1)/h} of the data for {@code h} hosts, where the flat ring
 * carries {@code 2(n-1)/n} for {@code n} members, and every member ends with the same floats.
 * A large array goes in up to {@link #MAX_BLOCKS} blocks, pipelined: while the ring across the
 * hosts carries one block (on a thread of its own), the ring inside the host reduces the next and
 * gathers the one before, so the link between hosts seldom waits for the work inside one.
 *
 * <p>Floats travel little-endian (every platform we run on). A link to a peer on the same host
 * that agreed on shared memory when the ring was formed carries frames in a mapped segment
 * ({@link SharedMemoryFrames}: each element copied once on each side); any other link carries
 * them in the TCP stream ({@link SocketFrames}: through a direct staging buffer, and the kernel).
 * After any failure, including a timeout, the ring is unusable and must be formed again.
 */
public final class RingAllReduce implements AllReduce, AutoCloseable {
  public static final int DEFAULT_CHUNK_BYTES = 1 << 20;
  /** Blocks of an all-reduce by host: enough to hide the work inside a host behind the link. */
  static final int MAX_BLOCKS = 4;
  /** The smallest block worth a pipeline stage of its own (a header round trip on each ring). */
  static final int MIN_BLOCK_FLOATS = 1 << 18;

  private final Ring ring;
  private final Duration timeout;
  /** The flat ring's pass; null in a ring of one or where the ring goes by host. */
  private final RingPass flat;
  /** The passes inside this member's host and across the hosts; null unless by host. */
  private final RingPass inside;
  private final RingPass across;
  /** Runs the ring across the hosts beside the one inside; null unless by host. */
  private final ExecutorService acrossThread;
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
    if (chunkBytes < Float.BYTES || chunkBytes < RingPass.HEADER_BYTES) {
      throw new IllegalArgumentException("chunkBytes=" + chunkBytes);
    }
    this.ring = ring;
    this.timeout = timeout;
    int chunkFloats = chunkBytes / Float.BYTES;
    Ring.Levels levels = ring.levels();
    if (levels != null) {
      this.flat = null;
      this.inside = new RingPass(levels.inside(), chunkFloats);
      this.across = new RingPass(levels.across(), chunkFloats);
      this.acrossThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "ring-across-hosts-v" + ring.version());
        t.setDaemon(true);
        return t;
      });
    } else {
      this.flat = ring.size() > 1 ? new RingPass(ring, chunkFloats) : null;
      this.inside = null;
      this.across = null;
      this.acrossThread = null;
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
    if (ring.size() == 1) {
      return;
    }
    Deadline deadline = Deadline.after(timeout);
    try {
      if (flat != null) {
        flat.run(data, 0, data.length, RingPass.Half.BOTH, deadline);
      } else {
        sumByHost(data, deadline);
      }
    } catch (IOException e) {
      broken = e;
      throw e;
    }
  }

  /**
   * Block by block: reduce-scatter inside the host, all-reduce this member's segment across the
   * hosts (on {@link #acrossThread}), all-gather inside the host. The ring inside runs, on every
   * member alike, RS(0), RS(1), AG(0), RS(2), AG(1), ... AG(last); the ring across runs the blocks
   * in order. The two never touch the same floats at once: the ring across holds one block's
   * segment, the ring inside another block.
   */
  private void sumByHost(float[] data, Deadline deadline) throws IOException {
    int blocks = blocks(data.length);
    List<Future<?>> crossed = new ArrayList<>(blocks);
    try {
      for (int b = 0; b < blocks; b++) {
        int start = blockStart(data.length, blocks, b);
        int length = blockStart(data.length, blocks, b + 1) - start;
        inside.run(data, start, length, RingPass.Half.REDUCE_SCATTER, deadline);
        RingSchedule local = inside.schedule(length);
        RingSchedule.Range mine = local.segment(local.reducedSegment());
        crossed.add(acrossThread.submit(() -> {
          across.run(data, start + mine.offset(), mine.length(), RingPass.Half.BOTH, deadline);
          return null;
        }));
        if (b > 0) {
          gather(data, blocks, b - 1, crossed.get(b - 1), deadline);
        }
      }
      gather(data, blocks, blocks - 1, crossed.get(blocks - 1), deadline);
    } catch (IOException | RuntimeException e) {
      // The ring across must not go on writing into the array once this call has failed.
      across.abort("the all-reduce inside the host failed: " + e.getMessage());
      for (Future<?> f : crossed) {
        awaitQuietly(f);
      }
      throw e;
    }
  }

  private void gather(float[] data, int blocks, int b, Future<?> crossed, Deadline deadline) throws IOException {
    await(crossed);
    int start = blockStart(data.length, blocks, b);
    inside.run(data, start, blockStart(data.length, blocks, b + 1) - start, RingPass.Half.ALL_GATHER, deadline);
  }

  /** How many blocks an array of {@code length} goes in: the same on every member. */
  static int blocks(int length) {
    return Math.max(1, Math.min(MAX_BLOCKS, length / MIN_BLOCK_FLOATS));
  }

  private static int blockStart(int length, int blocks, int b) {
    return (int) ((long) b * length / blocks);
  }

  private static void await(Future<?> f) throws IOException {
    try {
      f.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("all-reduce across the hosts failed: " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException ie = new InterruptedIOException("all-reduce across the hosts interrupted");
      ie.initCause(e);
      throw ie;
    }
  }

  private static void awaitQuietly(Future<?> f) {
    try {
      f.get();
    } catch (ExecutionException | RuntimeException e) {
      // Its failure follows the one being thrown.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Makes the all-reduce in progress (or the next one) fail at once, from any thread: the leader
   * declared a member of this ring failed, and waiting for a hung member's data would only hold
   * the survivors until the timeout.
   */
  public void abort(String why) {
    aborted = why;
    for (RingPass p : passes()) {
      p.abort(why);
    }
  }

  private List<RingPass> passes() {
    List<RingPass> all = new ArrayList<>(3);
    for (RingPass p : new RingPass[] {flat, inside, across}) {
      if (p != null) {
        all.add(p);
      }
    }
    return all;
  }

  /** Releases the selectors and the thread; the ring's links stay open (they belong to the {@link Ring}). */
  @Override
  public void close() throws IOException {
    if (acrossThread != null) {
      acrossThread.shutdownNow();
    }
    IOException first = null;
    for (RingPass p : passes()) {
      try {
        p.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
