package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalDouble;
import org.edl.job.Growth;
import org.edl.worker.emulated.EmulatedModels;
import org.edl.worker.emulated.StepProfile;
import org.junit.jupiter.api.Test;

class ProfiledThroughputTest {
  @Test
  void placementsArePackedOntoFourGpuNodes() {
    assertEquals("1", ProfiledThroughput.packed(1));
    assertEquals("4", ProfiledThroughput.packed(4));
    assertEquals("14", ProfiledThroughput.packed(5));
    assertEquals("44", ProfiledThroughput.packed(8));
    assertEquals("244", ProfiledThroughput.packed(10));
  }

  /**
   * The imagenet (ResNet-50) profile the worker jar carries, at 200 samples per GPU: the step
   * time barely grows with the GPUs (1.005 s on one node of 4, 1.015 s on two), so growth from 4
   * to 8 pays; the first worker on a second node costs little at this batch.
   */
  @Test
  void theShippedImagenetProfileSaysGrowingFromFourToEightPaysAtALargeBatch() throws Exception {
    StepProfile imagenet = EmulatedModels.profile("imagenet", null);
    ProfiledThroughput curve = new ProfiledThroughput(imagenet, 1, n -> 200 * n);
    OptionalDouble four = curve.at(4);
    assertEquals(4 * 200 / imagenet.stepSeconds("4", 200), four.getAsDouble(), 1e-9);
    assertTrue(curve.at(8).getAsDouble() > 1.9 * four.getAsDouble(), curve.at(8) + " vs " + four);
    GrowthPolicy p = new GrowthPolicy(4, 8, new Growth(true, 0.5, 0), curve, () -> 0);
    for (int n = 4; n < 8; n++) {
      assertTrue(p.next(n, true).ask(), n + ": " + p.next(n, true).why());
    }
    assertFalse(new ProfiledThroughput(imagenet, 1, n -> 200 * n).at(64).isPresent(), "not measured");
  }

  @Test
  void atASmallFixedGlobalBatchTheSecondNodeDoesNotPay() throws Exception {
    ProfiledThroughput curve = new ProfiledThroughput(EmulatedModels.profile("imagenet", null), 1, n -> 160);
    GrowthPolicy p = new GrowthPolicy(4, 8, new Growth(true, 0.5, 0), curve, () -> 0);
    assertFalse(p.next(4, true).ask(), p.next(4, true).why());
  }
}
