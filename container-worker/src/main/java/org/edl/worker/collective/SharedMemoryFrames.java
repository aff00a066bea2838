package org.edl.worker.collective;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;

/**
 * Frames written straight into the slots of a {@link SharedMemorySegment}: the sender copies each
 * element in once and the receiver reads it from there, where a TCP link on one host costs two
 * more copies through the kernel. The link's socket only carries one-byte words: a doorbell per
 * frame from the sender, a credit per freed slot back from the receiver. Waiting for one is an
 * ordinary selector wait, so no thread spins, and a peer that dies still shows as the end of its
 * stream. The system calls that carry the words order the slot's contents on both sides; the
 * explicit fences keep the JIT from moving slot accesses across them.
 */
final class SharedMemoryFrames {
  private static final int MAX_WORDS = 64;

  private SharedMemoryFrames() {}

  static final class Outbound implements OutboundFrames {
    private final PeerLink link;
    private final SharedMemorySegment segment;
    private final ByteBuffer words = ByteBuffer.allocateDirect(MAX_WORDS);
    private int credits;
    private long sequence;
    private int doorbells;

    Outbound(PeerLink link, SharedMemorySegment segment) {
      this.link = link;
      this.segment = segment;
      this.credits = segment.slotCount();
    }

    @Override
    public Frame claim(long call) throws IOException {
      if (credits == 0 && !takeCredits(call)) {
        return null;
      }
      Frame f = segment.slot(sequence);
      f.bytes().clear();
      return f;
    }

    private boolean takeCredits(long call) throws IOException {
      int n = heard(link, words, call); // the receiver's reads of those slots are done
      if (n > 0) {
        credits += n;
        if (credits > segment.slotCount()) {
          throw new IOException(link.peerId() + " handed back more shared-memory slots than there are ("
              + credits + " of " + segment.slotCount() + ") in all-reduce #" + call);
        }
      }
      return n > 0;
    }

    @Override
    public void commit(int length) {
      VarHandle.fullFence(); // the frame's contents before its doorbell
      credits--;
      sequence++;
      doorbells++;
    }

    @Override
    public boolean flush(long call) throws IOException {
      boolean moved = false;
      if (doorbells > 0) {
        int sent = ring(link, words, doorbells, call);
        doorbells -= sent;
        moved = sent > 0;
      }
      if (credits < segment.slotCount()) {
        moved |= takeCredits(call);
      }
      return moved;
    }

    @Override
    public boolean pending() {
      return doorbells > 0;
    }

    @Override
    public boolean drained() {
      return doorbells == 0 && credits == segment.slotCount();
    }

    @Override
    public int interestOps(boolean wantsRoom) {
      return (credits < segment.slotCount() ? SelectionKey.OP_READ : 0) | (doorbells > 0 ? SelectionKey.OP_WRITE : 0);
    }
  }

  static final class Inbound implements InboundFrames {
    private final PeerLink link;
    private final SharedMemorySegment segment;
    private final ByteBuffer words = ByteBuffer.allocateDirect(MAX_WORDS);
    private int available;
    private long sequence;
    private int owed;

    Inbound(PeerLink link, SharedMemorySegment segment) {
      this.link = link;
      this.segment = segment;
    }

    @Override
    public boolean receive(int length, long call) throws IOException {
      if (length > segment.slotBytes()) {
        throw new IOException("a frame of " + length + " bytes from " + link.peerId()
            + " does not fit its shared-memory slots of " + segment.slotBytes());
      }
      if (available > 0) {
        return false;
      }
      int n = heard(link, words, call); // the frames' contents are there after their doorbells
      if (n > 0) {
        available += n;
        if (available > segment.slotCount()) {
          throw new IOException(link.peerId() + " announced more frames than it has shared-memory slots ("
              + available + " of " + segment.slotCount() + ") in all-reduce #" + call);
        }
      }
      return n > 0;
    }

    @Override
    public Frame frame() {
      return available > 0 ? segment.slot(sequence) : null;
    }

    @Override
    public void release() {
      VarHandle.fullFence(); // done reading the slot before it is handed back
      available--;
      sequence++;
      owed++;
    }

    @Override
    public boolean flush(long call) throws IOException {
      if (owed == 0) {
        return false;
      }
      int sent = ring(link, words, owed, call);
      owed -= sent;
      return sent > 0;
    }

    @Override
    public boolean pending() {
      return owed > 0;
    }

    @Override
    public int interestOps(boolean awaitingFrame) {
      return (awaitingFrame && available == 0 ? SelectionKey.OP_READ : 0) | (owed > 0 ? SelectionKey.OP_WRITE : 0);
    }
  }

  /** Reads the one-byte words that have arrived; what the peer wrote before them is visible after. */
  private static int heard(PeerLink link, ByteBuffer words, long call) throws IOException {
    words.clear();
    int n = LinkIo.read(link, words, call);
    if (n > 0) {
      VarHandle.fullFence();
    }
    return n;
  }

  /** Writes up to {@code count} one-byte words; returns how many the socket took. */
  private static int ring(PeerLink link, ByteBuffer words, int count, long call) throws IOException {
    words.clear().limit(Math.min(count, MAX_WORDS));
    for (int i = 0; i < words.limit(); i++) {
      words.put(i, (byte) 1);
    }
    return LinkIo.write(link, words, call);
  }
}
