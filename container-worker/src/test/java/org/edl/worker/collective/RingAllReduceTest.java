package org.edl.worker.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.edl.job.JobSecret;
import org.junit.jupiter.api.Test;

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

  @Test
  void sumsMatchDirectSumsForOneToEightMembers() throws Exception {
    for (int size = 1; size <= 8; size++) {
      // Tiny chunks for some sizes so that many chunks per segment are in flight.
      int chunkBytes = size % 2 == 0 ? 64 : RingAllReduce.DEFAULT_CHUNK_BYTES;
      try (LoopbackMembers members = new LoopbackMembers(size, JobSecret.generate(), 1)) {
        List<Ring> rings = members.formRings();
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

  @Test
  void membersCallingWithDifferentLengthsFailInsteadOfMixingData() throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(3, JobSecret.generate(), 1)) {
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
  @Test
  void aMemberThatClosesItsLinksIsNamedAsABrokenLinkByItsNeighbour() throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(3, JobSecret.generate(), 1)) {
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

  @Test
  void aMemberThatNeverCallsMakesTheOthersTimeOut() throws Exception {
    try (LoopbackMembers members = new LoopbackMembers(3, JobSecret.generate(), 1)) {
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
