package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class JoinerShareTest {
  /** With the share, a joiner that starts {@code lag} late ends its first step with the survivors. */
  @Test
  void withItsShareALateJoinerEndsItsFirstStepWithTheSurvivors() {
    int[][] cases = {{4, 1}, {2, 2}, {7, 1}, {1, 3}};
    for (int[] c : cases) {
      int m = c[0];
      int j = c[1];
      double compute = 0.63;
      double lag = 0.13;
      double s = JoinerShare.of(m, j, compute, lag);
      assertTrue(s > JoinerShare.MIN && s < 1, m + "+" + j + ": " + s);
      int n = m + j;
      double survivorEnds = n * compute / (m + j * s);
      double joinerEnds = lag + s * n * compute / (m + j * s);
      // Rounded to hundredths: within a few milliseconds of each other.
      assertEquals(survivorEnds, joinerEnds, 0.01, m + " survivors, " + j + " joiners, share " + s);
    }
    assertEquals(0.8, JoinerShare.of(4, 1, 0.63, 0.13));
  }

  @Test
  void nothingKnownOrNobodyJoiningMeansEvenPartsAndALongLagKeepsTheMinimum() {
    assertEquals(1, JoinerShare.of(4, 0, 0.6, 0.1));
    assertEquals(1, JoinerShare.of(4, 1, 0, 0.1), "no batch measured yet");
    assertEquals(1, JoinerShare.of(4, 1, 0.6, 0), "no lag expected (model size unknown)");
    assertEquals(JoinerShare.MIN, JoinerShare.of(4, 1, 0.01, 0.5));
  }

  @Test
  void theExpectedLagGrowsWithTheModelAndWeightsAreIntegers() {
    assertEquals(0, JoinerShare.expectedLagSeconds(0));
    // An emulated ResNet-50: 25.6 M floats, 102 MB.
    assertEquals(0.220, JoinerShare.expectedLagSeconds(25_557_032), 0.001);
    assertArrayEquals(new long[] {1000, 1000, 770}, JoinerShare.weights(3, r -> r == 2, 0.77));
  }
}
