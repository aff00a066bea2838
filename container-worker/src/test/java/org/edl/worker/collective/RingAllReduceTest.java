package org.edl.worker.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import org.edl.job.JobSecret;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RingAllReduceTest {
  static final int[] LENGTHS = {0, 1, 4, 100, 1000, 10007};

  static float[] input(int rank, int length) {
    Random random = new Random(31L * rank + length);
    float[] a = new float[length];
    for (int i = 0; i < length; i++) {
      a[i] = random.nextFloat() * 2 - 1;
    }
    return a;
  }

  static void assertSums(int size, int length, List<float[]> results) {
    double[] expected = new double[length];
    for (int r = 0; r < size; r++) {
      float[] in = input(r, length);
      for (int i = 0; i < length; i++) {
        expected[i] += in[i];
      }
    }
    for (int r = 0; r < size; r++) {
      float[] got = results.get(r);
      assertEquals(length, got.length);
      for (int i = 0; i < length; i++) {
        assertEquals(expected[i], got[i], 1e-5 * size,
            "size " + size + " length " + length + " rank " + r + " element " + i);
      }
    }
  }

  @TempDir
  Path shm;

  /** Every rank shares {@link #shm} (one host), or none does (TCP only). */
  private IntFunction<Path> dirs(boolean sharedMemory) {
    return rank -> sharedMemory ? shm : null;
  }

  @ParameterizedTest(name = "shared memory: {0}")
  @ValueSource(booleans = {false, true})
  void sumsMatchDirectSumsForOneToEightMembers(boolean sharedMemory) throws Exception {
    for (int size = 1; size <= 8; size++) {
      // Tiny chunks for some sizes so that many chunks per segment are in flight.
      int chunkBytes = size % 2 == 0 ? 64 : RingAllReduce.DEFAULT_CHUNK_BYTES;
      try (LoopbackMembers members = new LoopbackMembers(size, JobSecret.generate(), 1, dirs(sharedMemory))) {
        List<Ring> rings = members.formRings();
        String expected = size == 1 ? "none" : sharedMemory ? "shared memory" : "tcp";
        rings.forEach(ring -> assertEquals(expected, ring.transport()));
        int n = size;
        List<List<float[]>> perRank = members.onAll(r -> {
          try (RingAllReduce ring = new RingAllReduce(rings.get(r), LoopbackMembers.TIMEOUT, chunkBytes)) {
            assertEquals(r, ring.rank());
            assertEquals(n, ring.size());
            List<float[]> out = new java.util.ArrayList<>();
            for (int length : LENGTHS) {
              float[] a = input(r, length);
              ring.sum(a);
              out.add(a);
            }
            return out;
          }
        });
        for (int i = 0; i < LENGTHS.length; i++) {
          int li = i;
          assertSums(size, LENGTHS[i], perRank.stream().map(l -> l.get(li)).toList());
        }
        rings.forEach(Ring::close);
      }
    }
  }

  @ParameterizedTest(name = "shared memory: {0}")
  @ValueSource(booleans = {false, true})
  void membersCallingWithDifferentLengthsFailInsteadOfMixingData(boolean sharedMemory) throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(3, JobSecret.generate(), 1, dirs(sharedMemory))) {
      List<Ring> rings = members.formRings();
      List<String> errors = members.onAll(r -> {
        try (RingAllReduce ring = new RingAllReduce(rings.get(r), Duration.ofSeconds(5))) {
          ring.sum(new float[r == 1 ? 50 : 40]);
          return "no error";
        } catch (IOException e) {
          return e.getMessage();
        }
      });
      assertTrue(errors.stream().anyMatch(m -> m.contains("of 50 floats") && m.contains("of 40")), errors.toString());
      rings.forEach(Ring::close);
    }
  }

  /**
   * A member whose process ended closes its links: its right-hand neighbour reads the end of the
   * stream and names it as a broken link, which a timeout (a silent member) never does.
   */
  @ParameterizedTest(name = "shared memory: {0}")
  @ValueSource(booleans = {false, true})
  void aMemberThatClosesItsLinksIsNamedAsABrokenLinkByItsNeighbour(boolean sharedMemory) throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(3, JobSecret.generate(), 1, dirs(sharedMemory))) {
      List<Ring> rings = members.formRings();
      String gone = rings.get(2).topology().members().get(2).workerId();
      List<Object> outcomes = members.onAll(r -> {
        if (r == 2) {
          rings.get(2).close();
          return "closed";
        }
        try (RingAllReduce ring = new RingAllReduce(rings.get(r), Duration.ofSeconds(20))) {
          return assertThrows(IOException.class, () -> ring.sum(new float[100_000]));
        }
      });
      BrokenLinkException e = assertInstanceOf(BrokenLinkException.class, outcomes.get(0));
      assertEquals(gone, e.peerId(), e.getMessage());
      assertEquals(List.of(gone), BrokenLinkException.peersIn(new IOException("recovering", e)));
      rings.forEach(Ring::close);
    }
  }

  @Test
  void aTimeoutNamesNoBrokenLink() {
    assertEquals(List.of(), BrokenLinkException.peersIn(new CollectiveTimeoutException("ring all-reduce #1")));
  }

  @ParameterizedTest(name = "shared memory: {0}")
  @ValueSource(booleans = {false, true})
  void aMemberThatNeverCallsMakesTheOthersTimeOut(boolean sharedMemory) throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(3, JobSecret.generate(), 1, dirs(sharedMemory))) {
      List<Ring> rings = members.formRings();
      List<Object> outcomes = members.onAll(r -> {
        if (r == 2) {
          return "absent";
        }
        RingAllReduce ring = new RingAllReduce(rings.get(r), Duration.ofMillis(300));
        IOException e = assertThrows(IOException.class, () -> ring.sum(new float[1000]));
        // The links are in an unknown state now: later calls refuse to run.
        IOException again = assertThrows(IOException.class, () -> ring.sum(new float[1000]));
        assertTrue(again.getMessage().contains("form the ring again"), again.getMessage());
        ring.close();
        return e;
      });
      assertTrue(outcomes.get(0) instanceof CollectiveTimeoutException, String.valueOf(outcomes.get(0)));
      assertTrue(((Exception) outcomes.get(0)).getMessage().contains("ring all-reduce #1"));
      rings.forEach(Ring::close);
    }
  }

  /**
   * Only directions whose two ends share a directory use shared memory: rank 2 here is TCP only
   * and rank 3 has a directory of its own, as a member on another host would. The sums agree
   * whatever mix a ring ends up with, and no segment file outlives the ring's formation.
   */
  @Test
  void eachDirectionUsesSharedMemoryOnlyWhereBothEndsShareTheDirectory(@TempDir Path elsewhere) throws Exception {
    IntFunction<Path> dirs = rank -> rank == 2 ? null : rank == 3 ? elsewhere : shm;
    try (LoopbackMembers members = new LoopbackMembers(5, JobSecret.generate(), 1, dirs)) {
      List<Ring> rings = members.formRings();
      assertEquals(List.of(), listed(shm), "segments are unlinked once mapped or refused");
      assertEquals(List.of(), listed(elsewhere));
      // 0 -> 1 both in shm; 1 -> 2 and 2 -> 3 touch the TCP-only rank; 3 -> 4 across directories; 4 -> 0 in shm.
      assertEquals("shared memory", rings.get(0).transport());
      assertEquals("tcp to the right, shared memory from the left", rings.get(1).transport());
      assertEquals("tcp", rings.get(2).transport());
      assertEquals("tcp", rings.get(3).transport());
      assertEquals("shared memory to the right, tcp from the left", rings.get(4).transport());
      int length = 300_007;
      List<float[]> results = members.onAll(r -> {
        try (RingAllReduce ring = new RingAllReduce(rings.get(r), LoopbackMembers.TIMEOUT, 4096)) {
          float[] a = input(r, length);
          ring.sum(a);
          return a;
        }
      });
      assertSums(5, length, results);
      rings.forEach(Ring::close);
    }
  }

  /**
   * At a switch every member closes the old ring as soon as its own last all-reduce returns, while
   * a neighbour may still be consuming the last frames it was sent. Over shared memory that
   * neighbour still owes credits for them: a call ends only once they are back, so the close
   * finds nothing unread and the neighbour's last write does not hit a closed link.
   */
  @Test
  void aMemberClosingTheRingRightAfterItsLastCallDoesNotBreakItsNeighboursCall() throws Exception {
    for (int round = 0; round < 30; round++) {
      int size = 2 + round % 3;
      try (LoopbackMembers members = new LoopbackMembers(size, JobSecret.generate(), 1, dirs(true))) {
        List<Ring> rings = members.formRings();
        int length = 50_000 + round;
        List<float[]> results = members.onAll(r -> {
          RingAllReduce ring = new RingAllReduce(rings.get(r), LoopbackMembers.TIMEOUT, 4096);
          float[] a = input(r, length);
          ring.sum(a);
          ring.close();
          rings.get(r).close();
          return a;
        });
        assertSums(size, length, results);
      }
    }
  }

  /** A switch abandoned while its ring forms interrupts the forming thread: its wait ends at once. */
  @Test
  void anInterruptedWaitOnALinkEndsAtOnceInsteadOfSpinningToItsDeadline() throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(2, JobSecret.generate(), 1)) {
      List<Ring> rings = members.formRings();
      java.util.concurrent.CompletableFuture<Throwable> outcome = new java.util.concurrent.CompletableFuture<>();
      java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
      Thread reader = new Thread(() -> {
        reading.countDown();
        outcome.complete(assertThrows(IOException.class,
            () -> rings.get(0).left().read(java.nio.ByteBuffer.allocate(8), Duration.ofMinutes(5))));
      });
      reader.start();
      // Interrupted before its select or in it, the wait must end at once either way.
      reading.await();
      reader.interrupt();
      Throwable t = outcome.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertInstanceOf(java.io.InterruptedIOException.class, t);
      rings.forEach(Ring::close);
    }
  }

  /**
   * A ring closed by another thread while its all-reduce runs (a worker stopped from outside, a
   * test tearing a job down): over TCP the call fails on its closed socket; over shared memory it
   * must fail the same way, never write into a segment already unmapped (that kills the JVM).
   */
  @Test
  void aRingClosedUnderARunningAllReduceFailsTheCallAndKeepsTheProcess() throws Exception {
    for (int round = 0; round < 10; round++) {
      try (LoopbackMembers members = new LoopbackMembers(2, JobSecret.generate(), 1, dirs(true))) {
        List<Ring> rings = members.formRings();
        // Closed from another thread once rank 0 has finished `round` calls, as its next one starts.
        java.util.concurrent.CountDownLatch callsDone = new java.util.concurrent.CountDownLatch(round + 1);
        Thread closer = new Thread(() -> {
          try {
            callsDone.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          rings.get(0).close();
        });
        closer.start();
        List<String> outcomes = members.onAll(r -> {
          RingAllReduce ring = new RingAllReduce(rings.get(r), Duration.ofSeconds(5), 4096);
          try {
            for (int i = 0; i < 1000; i++) {
              if (r == 0) {
                callsDone.countDown();
              }
              ring.sum(input(r, 200_000));
            }
            return "finished";
          } catch (IOException e) {
            return "failed";
          } finally {
            ring.close();
          }
        });
        assertTrue(outcomes.contains("failed"), outcomes.toString());
        rings.forEach(Ring::close);
      }
    }
    try (LoopbackMembers members = new LoopbackMembers(2, JobSecret.generate(), 1, dirs(true))) {
      List<Ring> rings = members.formRings();
      RingAllReduce ring = new RingAllReduce(rings.get(0), Duration.ofSeconds(5));
      rings.get(0).close();
      IOException e = assertThrows(IOException.class, () -> ring.sum(new float[10]));
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
      rings.forEach(Ring::close);
    }
  }

  @Test
  void chunksLargerThanTheRingsSlotsAreRefused() throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(2, JobSecret.generate(), 1, dirs(true))) {
      List<Ring> rings = members.onAll(r -> Ring.form(members.planes.get(r), members.topology,
          LoopbackMembers.TIMEOUT, 1024));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new RingAllReduce(rings.get(0), LoopbackMembers.TIMEOUT, 2048));
      assertTrue(e.getMessage().contains("2048") && e.getMessage().contains("1024"), e.getMessage());
      rings.forEach(Ring::close);
    }
  }

  private static List<Path> listed(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.toList();
    }
  }

  @Test
  void aWorkerMissingFromTheTopologyCannotFormARing() throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(2, JobSecret.generate(), 1);
         DataPlane stranger = DataPlane.start("stranger", "127.0.0.1", 0, JobSecret.generate(),
             LoopbackMembers.TIMEOUT, null)) {
      assertThrows(IllegalArgumentException.class,
          () -> Ring.form(stranger, members.topology, LoopbackMembers.TIMEOUT));
    }
  }
}
