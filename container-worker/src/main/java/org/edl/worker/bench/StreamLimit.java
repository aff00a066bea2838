package org.edl.worker.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.edl.job.JobSecret;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.PeerLink;

/**
 * The limit a collective on this machine is measured against: one TCP stream over loopback,
 * through the same authenticated data-plane links, from a message-sized direct buffer into
 * another (no float conversion, no reduction). The buffers are as large as the message, so a
 * 256 MiB message is read from and written to memory as an all-reduce's arrays are, not
 * replayed from a cache-hot block. A message counts as delivered when the receiver's one-byte
 * acknowledgement is back, so small messages pay one round trip, as an all-reduce does.
 */
final class StreamLimit implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private final DataPlane sender;
  private final DataPlane receiver;
  private final PeerLink out;
  private final PeerLink in;
  private final PeerLink ackOut;
  private final PeerLink ackIn;
  private final ByteBuffer sendBuf;
  private final ByteBuffer recvBuf;

  /** @param maxBytes the largest message that will be timed */
  StreamLimit(JobSecret secret, int maxBytes) throws IOException {
    sendBuf = ByteBuffer.allocateDirect(maxBytes);
    recvBuf = ByteBuffer.allocateDirect(maxBytes);
    sender = DataPlane.start("p2p-sender", "127.0.0.1", 0, secret, TIMEOUT, null);
    receiver = DataPlane.start("p2p-receiver", "127.0.0.1", 0, secret, TIMEOUT, null);
    out = sender.connect(receiver.selfId(), "127.0.0.1", receiver.port(), "p2p", 0, TIMEOUT);
    in = receiver.accept(sender.selfId(), "p2p", 0, TIMEOUT);
    ackOut = receiver.connect(sender.selfId(), "127.0.0.1", sender.port(), "p2p-ack", 0, TIMEOUT);
    ackIn = sender.accept(receiver.selfId(), "p2p-ack", 0, TIMEOUT);
  }

  /** Seconds to move {@code bytes} from one thread to another and hear back. */
  double transfer(int bytes) throws IOException {
    CompletableFuture<Void> receiving = CompletableFuture.runAsync(() -> receive(bytes));
    long t0 = System.nanoTime();
    sendBuf.clear().limit(bytes);
    out.write(sendBuf, TIMEOUT);
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

  private void receive(int bytes) {
    try {
      recvBuf.clear().limit(bytes);
      in.read(recvBuf, TIMEOUT);
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
