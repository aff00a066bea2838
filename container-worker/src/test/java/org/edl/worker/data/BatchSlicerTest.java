package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BatchSlicerTest {

  @Test
  void partsAreContiguousCoverTheBatchOnceAndDifferByAtMostOne() {
    for (int workers = 1; workers <= 8; workers++) {
      for (int batch = 0; batch <= 25; batch++) {
        long start = 1000L + batch;
        long next = start;
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int rank = 0; rank < workers; rank++) {
          BatchSlicer.Range r = BatchSlicer.slice(start, batch, rank, workers);
          assertEquals(next, r.from(), "rank " + rank + " of " + workers + ", batch " + batch);
          next = r.to();
          min = Math.min(min, r.length());
          max = Math.max(max, r.length());
        }
        assertEquals(start + batch, next, "the parts end where the batch ends");
        assertTrue(max - min <= 1, "uneven by more than one: " + min + ".." + max);
      }
    }
  }

  @Test
  void theFirstRanksTakeTheRemainder() {
    assertEquals(new BatchSlicer.Range(0, 3), BatchSlicer.slice(0, 10, 0, 4));
    assertEquals(new BatchSlicer.Range(3, 6), BatchSlicer.slice(0, 10, 1, 4));
    assertEquals(new BatchSlicer.Range(6, 8), BatchSlicer.slice(0, 10, 2, 4));
    assertEquals(new BatchSlicer.Range(8, 10), BatchSlicer.slice(0, 10, 3, 4));
    assertEquals(new BatchSlicer.Range(70, 73), BatchSlicer.sliceForStep(7, 10, 0, 4));
  }

  /** Across steps and an epoch wrap, every sample of an epoch is visited once by some worker. */
  @Test
  void stepsOverAnEpochVisitEverySampleOnce() {
    int size = 23;
    int batch = 5;
    int workers = 3;
    EpochOrder order = new EpochOrder(size, 4);
    int[] visits0 = new int[size];
    int[] visits1 = new int[size];
    for (long step = 0; step * batch < 2L * size; step++) {
      for (int rank = 0; rank < workers; rank++) {
        BatchSlicer.Range r = BatchSlicer.sliceForStep(step, batch, rank, workers);
        int[] samples = order.samples(r);
        for (int i = 0; i < samples.length; i++) {
          long position = r.from() + i;
          if (position < size) {
            visits0[samples[i]]++;
          } else if (position < 2L * size) {
            visits1[samples[i]]++;
          }
        }
      }
    }
    int[] once = new int[size];
    Arrays.fill(once, 1);
    assertArrayEquals(once, visits0);
    assertArrayEquals(once, visits1);
    assertEquals(IntStream.range(0, size).sum(), Arrays.stream(order.order(1)).sum());
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> BatchSlicer.slice(0, 10, 4, 4));
    assertThrows(IllegalArgumentException.class, () -> BatchSlicer.slice(0, 10, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> BatchSlicer.slice(-1, 10, 0, 1));
  }

  @Test
  void weightedPartsCoverTheBatchOnceInRankOrderAndFollowTheWeights() {
    long[] weights = {1000, 1000, 1000, 1000, 770};
    for (int batch : new int[] {0, 1, 7, 640, 641, 100_003}) {
      long next = 5_000;
      int[] lengths = new int[weights.length];
      for (int r = 0; r < weights.length; r++) {
        BatchSlicer.Range range = BatchSlicer.slice(5_000, batch, r, weights);
        assertEquals(next, range.from(), "rank " + r + " of a batch of " + batch + " starts where the last ended");
        next = range.to();
        lengths[r] = range.length();
      }
      assertEquals(5_000 + batch, next, "the parts cover the batch of " + batch);
      if (batch >= 100) {
        assertTrue(lengths[4] < lengths[0], Arrays.toString(lengths));
      }
    }
    // 640 samples, weights 4 x 1000 + 770: the survivors end at 536 (floor of 4 x 134.17), the joiner takes the rest.
    assertEquals(104, BatchSlicer.slice(0, 640, 4, weights).length());
    assertEquals(134, BatchSlicer.slice(0, 640, 0, weights).length());
  }

  @Test
  void equalWeightsSliceAsTheEvenSplitDoesWhenTheBatchDivides() {
    long[] equal = {5, 5, 5};
    for (int r = 0; r < 3; r++) {
      assertEquals(BatchSlicer.slice(30, 300, r, 3), BatchSlicer.slice(30, 300, r, equal));
    }
    assertThrows(IllegalArgumentException.class, () -> BatchSlicer.slice(0, 10, 0, new long[] {1, 0}));
    assertThrows(IllegalArgumentException.class, () -> BatchSlicer.slice(0, 10, 2, new long[] {1, 1}));
  }
}
