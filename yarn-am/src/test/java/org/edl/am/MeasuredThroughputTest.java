package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.thrift.JobProgress;
import org.junit.jupiter.api.Test;

class MeasuredThroughputTest {
  private static JobProgress report(int workers, long version, long step, long samples, double seconds) {
    JobProgress p = new JobProgress(step, 1_000_000, 0.5, 0, workers);
    p.setLeaderEpoch(1);
    p.setTopologyVersion(version);
    p.setSamplesSeen(samples);
    p.setLeaderSeconds(seconds);
    return p;
  }

  @Test
  void aSizeIsMeasuredWithinOneRingOnlyAndOverAllItsWindows() {
    MeasuredThroughput m = new MeasuredThroughput();
    m.onProgress(report(2, 1, 100, 6_400, 10.0));
    m.onProgress(report(2, 1, 105, 6_720, 11.0));
    assertFalse(m.at(2).isPresent(), "5 steps are too few");
    m.onProgress(report(2, 1, 120, 7_680, 13.0)); // 1280 samples in 3 s
    assertEquals(1280 / 3.0, m.at(2).getAsDouble(), 1e-9);

    // The switch to 3 workers: a report of the new ring starts a new window, whatever came before.
    m.onProgress(report(3, 2, 121, 7_744, 13.1));
    m.onProgress(report(3, 2, 140, 8_960, 15.1)); // 1216 samples in 2 s
    assertEquals(608.0, m.at(3).getAsDouble(), 1e-9);
    assertEquals(1280 / 3.0, m.at(2).getAsDouble(), 1e-9, "the other size is kept");
    m.onProgress(report(3, 2, 160, 10_240, 19.1)); // 1280 samples in 4 s
    assertEquals((1216 + 1280) / 6.0, m.at(3).getAsDouble(), 1e-9, "both windows together");

    // A new leader epoch's first report is a new window, not the end of the old one.
    JobProgress successor = report(3, 1, 170, 10_880, 2.0);
    successor.setLeaderEpoch(2);
    m.onProgress(successor);
    assertEquals((1216 + 1280) / 6.0, m.at(3).getAsDouble(), 1e-9);
  }

  @Test
  void aSizeIsSettledOnlyAfterThreeWindowsTheFirstOfWhichHoldsTheNewcomersColdStart() {
    MeasuredThroughput m = new MeasuredThroughput();
    m.onProgress(report(3, 2, 100, 6_400, 10.0));
    for (int w = 1; w <= 3; w++) {
      assertFalse(m.settled(3), "after " + (w - 1) + " windows");
      m.onProgress(report(3, 2, 100 + 10L * w, 6_400 + 960L * w, 10.0 + 2 * w));
    }
    assertTrue(m.settled(3));
    assertFalse(m.settled(2), "never measured");
  }
}
