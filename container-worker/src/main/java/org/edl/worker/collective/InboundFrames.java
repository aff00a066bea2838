package org.edl.worker.collective;

import java.io.IOException;

/**
 * The receiving side of one ring link as {@link RingAllReduce} drives it: frames arrive in the
 * order they were sent, each {@link #release}d once consumed.
 */
interface InboundFrames {
  /** Reads what has arrived towards the next frame of {@code length} bytes; true if anything did. */
  boolean receive(int length, long call) throws IOException;

  /** The next frame once it has arrived whole, or null. */
  Frame frame();

  /** The frame from {@link #frame} has been consumed; its room may be reused. */
  void release();

  /** Moves what it owes the sending end without blocking; true if anything moved. */
  boolean flush(long call) throws IOException;

  /** True while this end still owes the sending end a word. */
  boolean pending();

  /** The selector operations on the link's channel that would let this end move again. */
  int interestOps(boolean awaitingFrame);
}
