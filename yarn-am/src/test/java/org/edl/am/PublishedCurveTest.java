package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The curve the job page publishes for the ResourceManager. */
class PublishedCurveTest {
  @Test
  void everyKnownSizeUpToMaxWorkersInOrder() {
    Map<Integer, Double> known = Map.of(4, 796.0, 2, 410.25, 9, 1300.0);
    ThroughputCurve curve = w -> known.containsKey(w) ? OptionalDouble.of(known.get(w)) : OptionalDouble.empty();
    assertEquals("2:2=410.250,4=796.000", PublishedCurve.of(curve, 2, 8), "9 is past max-workers");
    assertEquals("1:", PublishedCurve.of(ThroughputCurve.UNKNOWN, 0, 8), "nothing known yet; CPU jobs count as 1");
  }
}
