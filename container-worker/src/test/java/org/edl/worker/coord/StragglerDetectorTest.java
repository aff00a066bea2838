package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StragglerDetectorTest {
  /** Times of one step: w1..wn at 10 ms, except the ones given. */
  private static Map<String, Double> step(int workers, Object... slow) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (int i = 1; i <= workers; i++) {
      m.put("w" + i, 0.010);
    }
    for (int i = 0; i < slow.length; i += 2) {
      m.put((String) slow[i], (Double) slow[i + 1]);
    }
    return m;
  }

  private static Optional<StragglerDetector.Straggler> feed(StragglerDetector d, int times,
      Map<String, Double> step) {
    Optional<StragglerDetector.Straggler> last = Optional.empty();
    for (int i = 0; i < times; i++) {
      last = d.step(step, false);
      if (last.isPresent() && i < times - 1) {
        throw new AssertionError("named after " + (i + 1) + " batches, not " + times);
      }
    }
    return last;
  }

  @Test
  void namesAWorkerSlowerThanTheFactorForTheWholeWindowAndNotBefore() {
    StragglerDetector d = new StragglerDetector(1.2, 10, 1);
    Optional<StragglerDetector.Straggler> s = feed(d, 10, step(4, "w3", 0.0134));
    assertTrue(s.isPresent());
    assertEquals("w3", s.get().workerId());
    assertEquals(0.010, s.get().medianSeconds(), 1e-12);
    assertEquals(10, s.get().batches());
    assertTrue(s.get().describe().contains("w3") && s.get().describe().contains("10 consecutive"),
        s.get().describe());
  }

  @Test
  void aWorkerWithinTheFactorIsNeverNamed() {
    StragglerDetector d = new StragglerDetector(1.2, 3, 1);
    assertTrue(feed(d, 50, step(4, "w3", 0.0119)).isEmpty());
  }

  @Test
  void aBatchAtNormalSpeedStartsTheCountAgain() {
    StragglerDetector d = new StragglerDetector(1.2, 5, 1);
    assertTrue(feed(d, 4, step(3, "w2", 0.02)).isEmpty());
    assertTrue(d.step(step(3), false).isEmpty(), "recovered for one batch");
    assertTrue(feed(d, 4, step(3, "w2", 0.02)).isEmpty(), "four slow batches again are not five");
    assertEquals("w2", d.step(step(3, "w2", 0.02), false).orElseThrow().workerId());
  }

  @Test
  void neverBelowMinWorkers() {
    StragglerDetector d = new StragglerDetector(1.2, 2, 3);
    assertTrue(feed(d, 20, step(3, "w1", 0.05)).isEmpty(), "three workers at min-workers=3");
    assertEquals("w1", d.step(step(4, "w1", 0.05), false).orElseThrow().workerId(),
        "a fourth worker makes one removable; the count went on meanwhile");
  }

  @Test
  void oneAtATimeTheSlowestFirst() {
    StragglerDetector d = new StragglerDetector(1.2, 3, 1);
    Map<String, Double> twoSlow = step(5, "w2", 0.03, "w4", 0.05);
    assertEquals("w4", feed(d, 3, twoSlow).orElseThrow().workerId());
    assertTrue(d.step(twoSlow, false).isEmpty(), "w4 is still leaving: nobody else is named");
    Map<String, Double> w4Gone = step(5, "w2", 0.03);
    w4Gone.remove("w4");
    assertTrue(d.step(w4Gone, true).isEmpty(), "nobody is named while a change is in flight");
    assertEquals("w2", d.step(w4Gone, false).orElseThrow().workerId(),
        "w2 counted on meanwhile and is named once w4 is gone and nothing is in flight");
  }

  @Test
  void aReleasedWorkerMayBeNamedAgainAndZeroTurnsDetectionOff() {
    StragglerDetector d = new StragglerDetector(1.2, 2, 1);
    assertEquals("w1", feed(d, 2, step(3, "w1", 0.05)).orElseThrow().workerId());
    d.release("w1");
    assertEquals("w1", feed(d, 2, step(3, "w1", 0.05)).orElseThrow().workerId());

    assertFalse(new StragglerDetector(0, 10, 1).enabled());
    assertFalse(new StragglerDetector(1.2, 0, 1).enabled());
    assertTrue(feed(new StragglerDetector(1.2, 0, 1), 30, step(3, "w1", 1.0)).isEmpty());
  }

  @Test
  void aNewcomerIsNotJudgedWhileItWarmsUpThenLikeTheOthers() {
    StragglerDetector d = new StragglerDetector(1.2, 3, 1, 5, StragglerDetector.MIN_DIFFERENCE_SECONDS);
    assertTrue(feed(d, 10, step(3)).isEmpty());
    Map<String, Double> withSlowNewcomer = step(4, "w4", 0.05);
    assertTrue(feed(d, 5 + 2, withSlowNewcomer).isEmpty(), "five steps of warm-up, then two slow ones");
    assertEquals("w4", d.step(withSlowNewcomer, false).orElseThrow().workerId(),
        "judged like the others once warm: named at its third slow step after the warm-up");
  }

  @Test
  void theWorkersOfTheFirstStepAreNoNewcomers() {
    StragglerDetector d = new StragglerDetector(1.2, 3, 1, 50, StragglerDetector.MIN_DIFFERENCE_SECONDS);
    assertEquals("w2", feed(d, 3, step(3, "w2", 0.05)).orElseThrow().workerId());
  }

  @Test
  void aSuccessorTakesTheWorkersItWasHandedForNoNewcomers() {
    StragglerDetector d = new StragglerDetector(1.2, 3, 1, 50, StragglerDetector.MIN_DIFFERENCE_SECONDS);
    d.resume(Map.of("w1", 0, "w2", 1, "w3", 0));
    assertEquals("w2", feed(d, 2, step(3, "w2", 0.05)).orElseThrow().workerId(),
        "one slow step counted by the predecessor and two here");
  }

  @Test
  void aDifferenceTooSmallToMatterIsNoStragglerWhateverTheRatio() {
    StragglerDetector d = new StragglerDetector(1.2, 3, 1);
    Map<String, Double> tiny = new LinkedHashMap<>();
    tiny.put("w1", 0.00003);
    tiny.put("w2", 0.00003);
    tiny.put("w3", 0.00003);
    tiny.put("w4", 0.0007);
    assertTrue(feed(d, 100, tiny).isEmpty(), "0.7 ms against 0.03 ms: 22x, but under a millisecond");
    tiny.put("w4", 0.0017);
    assertEquals("w4", feed(d, 3, tiny).orElseThrow().workerId(), "1.7 ms against 0.03 ms is slow");
  }

  @Test
  void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertEquals(2.5, StragglerDetector.median(java.util.List.of(4.0, 1.0, 3.0, 2.0)), 1e-12);
    assertEquals(3.0, StragglerDetector.median(java.util.List.of(5.0, 1.0, 3.0)), 1e-12);
  }
}
