package org.edl.worker.collective;

import java.io.IOException;
import java.nio.channels.Selector;
import java.nio.channels.SelectionKey;

/**
 * Moves a known number of frames in one direction of one link, blocking the calling thread (the
 * ring all-reduce interleaves both directions itself; a broadcast or a stream needs only one). Every
 * wait is a selector wait with the caller's deadline.
 */
final class FramePump implements AutoCloseable {
  /** Writes frame {@code index} into {@code f}; returns its length in bytes. */
  interface Filler {
    int fill(int index, Frame f) throws IOException;
  }

  /** Reads frame {@code index}, which arrived whole in {@code f}. */
  interface Reader {
    void read(int index, Frame f) throws IOException;
  }

  /** The length in bytes of frame {@code index}, as the receiver expects it. */
  interface Lengths {
    int of(int index);
  }

  private final Selector selector;
  private final SelectionKey key;

  FramePump(PeerLink link) throws IOException {
    this.selector = Selector.open();
    this.key = link.channel().register(selector, 0);
  }

  void send(OutboundFrames out, int frames, Filler filler, Deadline deadline, String what) throws IOException {
    long call = 1;
    int next = 0;
    boolean sending = false;
    while (next < frames || out.pending() || !out.drained()) {
      boolean progress = false;
      boolean wantsRoom = !sending && next < frames;
      if (wantsRoom) {
        Frame f = out.claim(call);
        if (f != null) {
          out.commit(filler.fill(next, f));
          sending = true;
          wantsRoom = false;
        }
      }
      progress |= out.flush(call);
      if (sending && !out.pending()) {
        sending = false;
        next++;
        progress = true;
      }
      if (!progress) {
        key.interestOps(out.interestOps(wantsRoom));
        await(deadline, what);
      }
    }
  }

  void receive(InboundFrames in, int frames, Lengths lengths, Reader reader, Deadline deadline, String what)
      throws IOException {
    long call = 1;
    int next = 0;
    while (next < frames || in.pending()) {
      boolean progress = false;
      if (next < frames) {
        progress |= in.receive(lengths.of(next), call);
        Frame f = in.frame();
        if (f != null) {
          reader.read(next, f);
          in.release();
          next++;
          progress = true;
        }
      }
      progress |= in.flush(call);
      if (!progress) {
        key.interestOps(in.interestOps(next < frames));
        await(deadline, what);
      }
    }
  }

  private void await(Deadline deadline, String what) throws IOException {
    selector.select(deadline.remainingMillisOrThrow(what));
    selector.selectedKeys().clear();
    Deadline.failIfInterrupted(what);
  }

  @Override
  public void close() throws IOException {
    selector.close();
  }
}
