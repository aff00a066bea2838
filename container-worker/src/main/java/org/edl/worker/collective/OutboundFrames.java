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

  /**
   * True once the receiving end has handed back the room of every frame sent: a call ends only
   * then, so that nothing the receiver sends is left unread when this end closes the link (an
   * unread byte turns the close into a reset, which can cost the receiver data it has not read).
   */
  boolean drained();

  /** The selector operations on the link's channel that would let this end move again. */
  int interestOps(boolean wantsRoom);
}
