package org.edl.worker.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;

/**
 * Frames carried in the TCP stream itself, through one direct staging buffer per direction
 * allocated once: each element is copied into the socket and out of it.
 */
final class SocketFrames {
  private SocketFrames() {}

  static final class Outbound implements OutboundFrames {
    private final PeerLink link;
    private final Frame staging;
    private boolean committed;

    Outbound(PeerLink link, int frameBytes) {
      this.link = link;
      this.staging = Frame.over(ByteBuffer.allocateDirect(frameBytes));
    }

    @Override
    public Frame claim(long call) {
      staging.bytes().clear();
      return staging;
    }

    @Override
    public void commit(int length) {
      staging.bytes().position(0).limit(length);
      committed = true;
    }

    @Override
    public boolean flush(long call) throws IOException {
      if (!pending()) {
        return false;
      }
      int n = LinkIo.write(link, staging.bytes(), call);
      committed = staging.bytes().hasRemaining();
      return n > 0;
    }

    @Override
    public boolean pending() {
      return committed && staging.bytes().hasRemaining();
    }

    @Override
    public boolean drained() {
      return true; // the receiver never writes on this link
    }

    @Override
    public int interestOps(boolean wantsRoom) {
      return pending() ? SelectionKey.OP_WRITE : 0;
    }
  }

  static final class Inbound implements InboundFrames {
    private final PeerLink link;
    private final Frame staging;
    private boolean started;

    Inbound(PeerLink link, int frameBytes) {
      this.link = link;
      this.staging = Frame.over(ByteBuffer.allocateDirect(frameBytes));
    }

    @Override
    public boolean receive(int length, long call) throws IOException {
      ByteBuffer b = staging.bytes();
      if (!started) {
        b.clear().limit(length);
        started = true;
      }
      return b.hasRemaining() && LinkIo.read(link, b, call) > 0;
    }

    @Override
    public Frame frame() {
      return started && !staging.bytes().hasRemaining() ? staging : null;
    }

    @Override
    public void release() {
      started = false;
    }

    @Override
    public boolean flush(long call) {
      return false;
    }

    @Override
    public boolean pending() {
      return false;
    }

    @Override
    public int interestOps(boolean awaitingFrame) {
      return awaitingFrame ? SelectionKey.OP_READ : 0;
    }
  }
}
