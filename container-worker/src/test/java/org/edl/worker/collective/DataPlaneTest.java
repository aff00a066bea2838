package org.edl.worker.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSecret;
import org.edl.job.rpc.AuthenticationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DataPlaneTest {
  private static final Duration TIMEOUT = LoopbackMembers.TIMEOUT;
  private final JobSecret secret = JobSecret.generate();
  private final LinkedBlockingQueue<String> refused = new LinkedBlockingQueue<>();
  private DataPlane a;
  private DataPlane b;

  @BeforeEach
  void start() throws IOException {
    a = DataPlane.start("a", "127.0.0.1", 0, secret, TIMEOUT, (peer, cause) -> refused.add(peer));
    b = DataPlane.start("b", "127.0.0.1", 0, secret, TIMEOUT, null);
  }

  @AfterEach
  void stop() {
    a.close();
    b.close();
  }

  @Test
  void aPeerWithAnotherSecretIsRefusedAndTheRefusalRecorded() throws Exception {
    try (DataPlane intruder = DataPlane.start("intruder", "127.0.0.1", 0, JobSecret.generate(), TIMEOUT, null)) {
      assertThrows(AuthenticationException.class,
          () -> intruder.connect("a", "127.0.0.1", a.port(), Ring.TAG, 1, TIMEOUT));
      String peer = refused.poll(10, TimeUnit.SECONDS);
      assertTrue(peer != null && peer.contains("127.0.0.1"), "refusal reported: " + peer);
      assertEquals(1, a.refusedCount());
      // Nothing was filed for it: an accept for the intruder times out.
      assertThrows(CollectiveTimeoutException.class,
          () -> a.accept("intruder", Ring.TAG, 1, Duration.ofMillis(200)));
    }
  }

  @Test
  void connectionsAreFiledBySenderTagAndTopologyVersion() throws Exception {
    // Dial before anyone waits: arrivals are kept until claimed.
    PeerLink oldRing = b.connect("a", "127.0.0.1", a.port(), Ring.TAG, 1, TIMEOUT);
    PeerLink newRing = b.connect("a", "127.0.0.1", a.port(), Ring.TAG, 2, TIMEOUT);
    PeerLink model = b.connect("a", "127.0.0.1", a.port(), "broadcast", 2, TIMEOUT);
    write(newRing, 2);
    write(model, 3);
    write(oldRing, 1);
    try (PeerLink in2 = a.accept("b", Ring.TAG, 2, TIMEOUT);
         PeerLink in1 = a.accept("b", Ring.TAG, 1, TIMEOUT);
         PeerLink inModel = a.accept("b", "broadcast", 2, TIMEOUT)) {
      assertEquals(2, read(in2));
      assertEquals(1, read(in1));
      assertEquals(3, read(inModel));
      assertEquals("b", in2.peerId());
      assertEquals(2, in2.topologyVersion());
    }
    List.of(oldRing, newRing, model).forEach(PeerLink::close);
  }

  @Test
  void acceptTimesOutNamingWhatItWaitedFor() {
    CollectiveTimeoutException e = assertThrows(CollectiveTimeoutException.class,
        () -> a.accept("b", Ring.TAG, 5, Duration.ofMillis(100)));
    assertTrue(e.getMessage().contains("ring connection from b for topology 5"), e.getMessage());
  }

  @Test
  void aModelIsBroadcastToNewcomersInChunks() throws Exception {
    float[] model = RingAllReduceTest.input(0, 700_001); // several 1 MiB chunks and a remainder
    try (DataPlane c = DataPlane.start("c", "127.0.0.1", 0, secret, TIMEOUT, null)) {
      CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
        FloatTransfer transfer = new FloatTransfer();
        for (DataPlane newcomer : List.of(b, c)) {
          try (PeerLink link = a.connect(newcomer.selfId(), "127.0.0.1", newcomer.port(), "broadcast", 3, TIMEOUT)) {
            transfer.send(link, model, TIMEOUT);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      });
      float[] intoB = new float[model.length];
      try (PeerLink fromA = b.accept("a", "broadcast", 3, TIMEOUT)) {
        new FloatTransfer().receiveInto(fromA, intoB, TIMEOUT);
      }
      float[] atC;
      try (PeerLink fromA = c.accept("a", "broadcast", 3, TIMEOUT)) {
        atC = new FloatTransfer().receive(fromA, TIMEOUT);
      }
      sender.get(30, TimeUnit.SECONDS);
      assertArrayEquals(model, intoB);
      assertArrayEquals(model, atC);
    }
  }

  @Test
  void anEmptyArrayTravelsAndAWrongLengthIsNamed() throws Exception {
    PeerLink out = b.connect("a", "127.0.0.1", a.port(), "broadcast", 1, TIMEOUT);
    new FloatTransfer().send(out, new float[0], TIMEOUT);
    new FloatTransfer().send(out, new float[5], TIMEOUT);
    try (PeerLink in = a.accept("b", "broadcast", 1, TIMEOUT)) {
      assertEquals(0, new FloatTransfer().receive(in, TIMEOUT).length);
      IOException e = assertThrows(IOException.class,
          () -> new FloatTransfer().receiveInto(in, new float[4], TIMEOUT));
      assertTrue(e.getMessage().contains("b sends 5 floats; expected 4"), e.getMessage());
    }
    out.close();
  }

  private static void write(PeerLink link, int value) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(4).putInt(value).flip();
    link.write(buf, TIMEOUT);
  }

  private static int read(PeerLink link) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(4);
    link.read(buf, TIMEOUT);
    return buf.getInt(0);
  }
}
