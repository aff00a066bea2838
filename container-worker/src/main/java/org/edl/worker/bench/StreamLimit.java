package org.edl.worker.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.PeerLink;
import org.edl.worker.security.JobSecret;

/**
 * The limit a collective on this machine is measured against: one TCP stream over loopback,
 * through the same authenticated data-plane links, from a direct buffer into a direct buffer
 * (no float conversion, no reduction). A message counts as delivered when the receiver's one-byte
 * acknowledgement is back, so small messages pay one round trip, as an all-reduce does.
 */
final class StreamLimit implements AutoCloseable {
  private static final int BUFFER_BYTES = 1 << 20;
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private final DataPlane sender;
  private final DataPlane receiver;
  private final PeerLink out;
  private final PeerLink in;
  private final PeerLink ackOut;
  private final PeerLink ackIn;
  private final ByteBuffer sendBuf = ByteBuffer.allocateDirect(BUFFER_BYTES);
  private final ByteBuffer recvBuf = ByteBuffer.allocateDirect(BUFFER_BYTES);

  StreamLimit(JobSecret secret) throws IOException {
    sender = DataPlane.start("p2p-sender", "127.0.0.1", 0, secret, TIMEOUT, null);
    receiver = DataPlane.start("p2p-receiver", "127.0.0.1", 0, secret, TIMEOUT, null);
    out = sender.connect(receiver.selfId(), "127.0.0.1", receiver.port(), "p2p", 0, TIMEOUT);
    in = receiver.accept(sender.selfId(), "p2p", 0, TIMEOUT);
    ackOut = receiver.connect(sender.selfId(), "127.0.0.1", sender.port(), "p2p-ack", 0, TIMEOUT);
    ackIn = sender.accept(receiver.selfId(), "p2p-ack", 0, TIMEOUT);
  }

  /** Seconds to move {@code bytes} from one thread to another and hear back. */
  double transfer(long bytes) throws IOException {
    CompletableFuture<Void> receiving = CompletableFuture.runAsync(() -> receive(bytes));
    long t0 = System.nanoTime();
    for (long left = bytes; left > 0; ) {
      int n = (int) Math.min(BUFFER_BYTES, left);
      sendBuf.clear().limit(n);
      out.write(sendBuf, TIMEOUT);
      left -= n;
    }
    ByteBuffer ack = ByteBuffer.allocate(1);
    ackIn.read(ack, TIMEOUT);
    double seconds = (System.nanoTime() - t0) / 1e9;
    try {
      receiving.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException();
    } catch (ExecutionException e) {
      throw new IOException("receiver failed", e.getCause());
    }
    return seconds;
  }

  private void receive(long bytes) {
    try {
      for (long left = bytes; left > 0; ) {
        int n = (int) Math.min(BUFFER_BYTES, left);
        recvBuf.clear().limit(n);
        in.read(recvBuf, TIMEOUT);
        left -= n;
      }
      ackOut.write(ByteBuffer.wrap(new byte[] {1}), TIMEOUT);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    out.close();
    in.close();
    ackOut.close();
    ackIn.close();
    sender.close();
    receiver.close();
  }
}
