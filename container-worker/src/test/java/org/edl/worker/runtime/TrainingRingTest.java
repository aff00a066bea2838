package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSecret;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.data.BatchSlicer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A switch's ring used before it is connected, between two real data planes on loopback. */
class TrainingRingTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private DataPlane w0;
  private DataPlane w1;
  private RingTopology topology;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void planes() throws IOException {
    JobSecret secret = JobSecret.generate();
    w0 = DataPlane.start("w0", "127.0.0.1", 0, secret, TIMEOUT, null);
    w1 = DataPlane.start("w1", "127.0.0.1", 0, secret, TIMEOUT, null);
    topology = new RingTopology(2, List.of(new RingTopology.Member("w0", "127.0.0.1", w0.port()),
        new RingTopology.Member("w1", "127.0.0.1", w1.port())));
  }

  @AfterEach
  void close() {
    threads.shutdownNow();
    w0.close();
    w1.close();
  }

  private Future<Ring> form(DataPlane plane) {
    return threads.submit(() -> Ring.form(plane, topology, TIMEOUT));
  }

  private Future<float[]> sum(TrainingRing ring, float... data) {
    return threads.submit(() -> {
      ring.sum(data);
      return data;
    });
  }

  @Test
  void theFirstSumWaitsForTheLinksAndForWhatMustComeFirstThenSums() throws Exception {
    CountDownLatch broadcastDone = new CountDownLatch(1);
    Future<Ring> connecting0 = form(w0);
    TrainingRing r0 = TrainingRing.connecting(topology, "w0", TIMEOUT, connecting0,
        threads.submit(() -> broadcastDone.await(1, TimeUnit.MINUTES)), null);
    assertEquals(0, r0.rank());
    assertEquals(2, r0.size());
    assertEquals(2, r0.version());
    Future<float[]> sum0 = sum(r0, 1f, 2f);
    TrainingRing r1 = TrainingRing.connecting(topology, "w1", TIMEOUT, form(w1), null, null);
    Future<float[]> sum1 = sum(r1, 10f, 20f);

    connecting0.get(1, TimeUnit.MINUTES);
    // Linked up, but rank 0 must not all-reduce before its broadcast is done.
    assertFalse(r0.isConnected(), "rank 0 adopted its links before the broadcast ended");
    assertFalse(sum0.isDone());
    broadcastDone.countDown();

    assertArrayEquals(new float[] {11f, 22f}, sum0.get(1, TimeUnit.MINUTES));
    assertArrayEquals(new float[] {11f, 22f}, sum1.get(1, TimeUnit.MINUTES));
    assertTrue(r0.isConnected());
    assertEquals("tcp", r0.transport());
    r0.close();
    r1.close();
  }

  @Test
  void anAbortFailsASumWaitingForARingThatNeverConnects() throws Exception {
    // w1 never dials: without the abort the sum would wait the whole 30 s timeout.
    TrainingRing r0 = TrainingRing.connecting(topology, "w0", TIMEOUT, form(w0), null, null);
    CountDownLatch waiting = new CountDownLatch(1);
    Future<float[]> sum0 = threads.submit(() -> {
      waiting.countDown();
      float[] d = {1f};
      r0.sum(d);
      return d;
    });
    waiting.await(1, TimeUnit.MINUTES);
    r0.abort("w1 was declared failed");
    ExecutionException e = assertThrows(ExecutionException.class, () -> sum0.get(20, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof IOException, e.getCause().toString());
    assertTrue(e.getCause().getMessage().contains("w1 was declared failed"), e.getCause().getMessage());
    // Later calls fail the same way.
    assertThrows(IOException.class, () -> r0.sum(new float[] {1f}));
  }

  @Test
  void aFailedBroadcastFailsTheFirstSumAndLetsGoOfTheLinks() throws Exception {
    CompletableFuture<Void> broadcast = CompletableFuture.failedFuture(new IOException("newcomer w1 is gone"));
    TrainingRing r0 = TrainingRing.connecting(topology, "w0", TIMEOUT, form(w0), broadcast, null);
    TrainingRing r1 = TrainingRing.connecting(topology, "w1", TIMEOUT, form(w1), null, null);
    Future<float[]> sum1 = sum(r1, 10f);

    IOException e = assertThrows(IOException.class, () -> r0.sum(new float[] {1f}));
    assertTrue(e.getMessage().contains("newcomer w1 is gone"), e.getMessage());
    assertFalse(r0.isConnected());
    // Rank 0 closed the links it formed: its peer's call fails instead of waiting out its timeout.
    ExecutionException peer = assertThrows(ExecutionException.class, () -> sum1.get(20, TimeUnit.SECONDS));
    assertTrue(peer.getCause() instanceof IOException, peer.getCause().toString());
    r1.close();
  }

  @Test
  void closingARingThatIsStillConnectingFailsItsSum() throws Exception {
    TrainingRing r0 = TrainingRing.connecting(topology, "w0", TIMEOUT, form(w0), null, null);
    r0.close();
    IOException e = assertThrows(IOException.class, () -> r0.sum(new float[] {1f}));
    assertTrue(e.getMessage().contains("ring v2"), e.getMessage());
  }

  @Test
  void theFirstStepIsSlicedByTheSwitchsWeightsAndTheNextOnesEvenly() throws Exception {
    long[] weights = {1000, 500};
    TrainingRing r0 = TrainingRing.connecting(topology, "w0", TIMEOUT, form(w0), null, weights);
    TrainingRing r1 = TrainingRing.connecting(topology, "w1", TIMEOUT, form(w1), null, weights);
    assertEquals(new BatchSlicer.Range(0, 100), r0.slice(0, 150));
    assertEquals(new BatchSlicer.Range(100, 150), r1.slice(0, 150));
    Future<float[]> sum0 = sum(r0, 1f);
    sum(r1, 2f).get(1, TimeUnit.MINUTES);
    sum0.get(1, TimeUnit.MINUTES);
    assertEquals(new BatchSlicer.Range(150, 225), r0.slice(150, 150));
    assertEquals(new BatchSlicer.Range(225, 300), r1.slice(150, 150));
    r0.close();
    r1.close();
  }
}
