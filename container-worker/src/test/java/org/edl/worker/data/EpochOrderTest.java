package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class EpochOrderTest {

  @Test
  void eachEpochIsAPermutation() {
    EpochOrder order = new EpochOrder(97, 5);
    for (long epoch = 0; epoch < 4; epoch++) {
      int[] sorted = order.order(epoch);
      Arrays.sort(sorted);
      assertArrayEquals(IntStream.range(0, 97).toArray(), sorted);
    }
  }

  @Test
  void theOrderDependsOnlyOnSeedAndEpoch() {
    EpochOrder a = new EpochOrder(50, 5);
    EpochOrder b = new EpochOrder(50, 5);
    b.order(3); // a different cache history must not matter
    assertArrayEquals(a.order(1), b.order(1));
    assertFalse(Arrays.equals(a.order(1), a.order(2)), "epochs differ");
    assertFalse(Arrays.equals(a.order(1), new EpochOrder(50, 6).order(1)), "seeds differ");
  }

  @Test
  void samplesRunOnIntoTheNextEpoch() {
    EpochOrder order = new EpochOrder(10, 1);
    int[] e0 = order.order(0);
    int[] e1 = order.order(1);
    int[] e2 = order.order(2);
    int[] wrapped = order.samples(7, 24);
    int[] expected = IntStream.concat(IntStream.concat(
        Arrays.stream(e0, 7, 10), Arrays.stream(e1)), Arrays.stream(e2, 0, 4)).toArray();
    assertArrayEquals(expected, wrapped);
    assertEquals(e1[3], order.sampleAt(13));
    assertEquals(0, order.samples(5, 5).length);
  }
}
