package org.edl.worker.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.edl.job.JobSecret;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingStream;
import org.edl.worker.collective.RingTopology;

/**
 * The limit the shared-memory ring is measured against: one direction of a two-member ring formed
 * through shared memory, carrying a message-sized direct buffer into another in the ring's own
 * frames ({@link RingStream}: copied into a slot by the sender and out of it by the receiver, no
 * float conversion, no reduction). A message lasts from the sender's start to the receiver
 * holding the last byte (both threads of this JVM, one clock).
 */
final class SharedMemoryStreamLimit implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private final DataPlane sender;
  private final DataPlane receiver;
  private final List<Ring> rings;
  private final RingStream out;
  private final RingStream in;
  private final ByteBuffer sendBuf;
  private final ByteBuffer recvBuf;

  SharedMemoryStreamLimit(JobSecret secret, Path sharedMemoryDir, int maxBytes, int frameBytes) throws IOException {
    sendBuf = ByteBuffer.allocateDirect(maxBytes);
    recvBuf = ByteBuffer.allocateDirect(maxBytes);
    sender = DataPlane.start("shm-sender", "127.0.0.1", 0, secret, TIMEOUT, null).shareMemoryIn(sharedMemoryDir);
    receiver = DataPlane.start("shm-receiver", "127.0.0.1", 0, secret, TIMEOUT, null).shareMemoryIn(sharedMemoryDir);
    RingTopology pair = new RingTopology(1, List.of(
        new RingTopology.Member(sender.selfId(), "127.0.0.1", sender.port()),
        new RingTopology.Member(receiver.selfId(), "127.0.0.1", receiver.port())));
    CompletableFuture<Ring> other = CompletableFuture.supplyAsync(() -> form(receiver, pair, frameBytes));
    Ring mine = form(sender, pair, frameBytes);
    rings = List.of(mine, other.join());
    out = new RingStream(rings.get(0), frameBytes);
    in = new RingStream(rings.get(1), frameBytes);
  }

  /** How the pair's links ended up: "shared memory" unless the directory refused. */
  String transport() {
    return rings.get(0).transport();
  }

  private static Ring form(DataPlane plane, RingTopology pair, int frameBytes) {
    try {
      return Ring.form(plane, pair, TIMEOUT, frameBytes);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Seconds to move {@code bytes} from one thread to another. */
  double transfer(int bytes) throws IOException {
    long t0 = System.nanoTime();
    CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> {
      try {
        recvBuf.clear().limit(bytes);
        in.receive(recvBuf, TIMEOUT);
        return System.nanoTime();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    sendBuf.clear().limit(bytes);
    out.send(sendBuf, TIMEOUT);
    try {
      return (received.get() - t0) / 1e9;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException();
    } catch (ExecutionException e) {
      throw new IOException("receiver failed", e.getCause());
    }
  }

  @Override
  public void close() throws IOException {
    out.close();
    in.close();
    rings.forEach(Ring::close);
    sender.close();
    receiver.close();
  }
}
