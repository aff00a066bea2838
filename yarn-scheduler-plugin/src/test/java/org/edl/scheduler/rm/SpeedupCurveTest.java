package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The {@code edl-speedup} tag as the RM reads it. */
class SpeedupCurveTest {
  @Test
  void theCurveIsReadByWorkersAndInterpolatedInGpus() {
    SpeedupCurve c = SpeedupCurve.of(Set.of("edl-gpus=4", SpeedupCurve.TAG + "2:1/1.8/2.4"));
    assertEquals(0, c.at(0));
    assertEquals(0.5, c.at(1), 1e-9, "half a worker");
    assertEquals(1.0, c.at(2), 1e-9);
    assertEquals(1.4, c.at(3), 1e-9, "between 1 and 2 workers");
    assertEquals(1.8, c.at(4), 1e-9);
    assertEquals(2.4, c.at(6), 1e-9);
    assertEquals(2.4, c.at(10), 1e-9, "no gain past the last measured size");
  }

  @Test
  void aPublishedCurveStartsAtOneWorkerAndFillsTheSizesItSkips() {
    // Measured at 2, 3 and 5 workers (samples per second), one GPU each.
    SpeedupCurve c = SpeedupCurve.published("1:5=500,2=300,3=390");
    // One worker is taken as half of two: 150 samples/s.
    assertEquals(1.0, c.at(1), 1e-9);
    assertEquals(2.0, c.at(2), 1e-9);
    assertEquals(2.6, c.at(3), 1e-9);
    assertEquals((390 + 55) / 150.0, c.at(4), 1e-9, "halfway between 3 and 5 workers");
    assertEquals(500 / 150.0, c.at(5), 1e-9);
    assertEquals(500 / 150.0, c.at(8), 1e-9, "flat past the largest size");
    assertEquals(5, c.sizes());
    assertEquals(1.0, SpeedupCurve.published("2:1=80").at(2), 1e-9);
    for (String none : new String[] {"2:", "1:x=3", "1:0=3", "1:2=-1", "1:2", "3", "1:2=NaN"}) {
      assertNull(SpeedupCurve.published(none), none);
    }
  }

  @Test
  void aMalformedTagIsIgnoredAndTheJobCountsAsLinear() {
    for (String bad : new String[] {"1/2/3", "0:1/2", "x:1/2", "1:", "1:1/-2", "1:1/NaN", "1:1/two"}) {
      assertNull(SpeedupCurve.of(Set.of(SpeedupCurve.TAG + bad)), bad);
    }
    assertNull(SpeedupCurve.of(Set.of("edl-gpus=4")));
  }
}
