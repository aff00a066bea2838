package org.edl.worker.collective;

import java.io.IOException;

/**
 * The sending side of one ring link as {@link RingAllReduce} drives it: frames go out one at a
 * time, without blocking, and the selector waits on {@link #interestOps} when nothing moved.
 */
interface OutboundFrames {
  /** Room for the next frame (cleared), or null while the receiving end has none free. */
  Frame claim(long call) throws IOException;

  /** The claimed frame holds {@code length} bytes from its start: send it. */
  void commit(int length);

  /** Moves what it can without blocking; true if anything moved. */
  boolean flush(long call) throws IOException;

  /** True while a committed frame (or word of it) has not yet left this end. */
  boolean pending();

  /** The selector operations on the link's channel that would let this end move again. */
  int interestOps(boolean wantsRoom);
}
