package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import org.edl.job.Growth;
import org.junit.jupiter.api.Test;

class GrowthPolicyTest {
  private long now = 1_000_000;
  private final Map<Integer, Double> curve = new HashMap<>();
  private final ThroughputCurve known = n -> curve.containsKey(n) ? OptionalDouble.of(curve.get(n)) : OptionalDouble.empty();

  private GrowthPolicy policy(int requested, int max, Growth growth) {
    return new GrowthPolicy(requested, max, growth, known, () -> now);
  }

  private static Growth efficiency(double e) {
    return new Growth(true, e, 60_000);
  }

  @Test
  void asksForTheRestOfTheRequestWhateverTheCurveAndGrowthSay() {
    GrowthPolicy p = policy(4, 8, Growth.OFF);
    assertTrue(p.next(2, true).ask(), p.next(2, true).why());
    assertTrue(p.next(3, true).ask());
    assertFalse(p.next(4, true).ask(), "without growth the job stops at the workers it asked for");
  }

  @Test
  void aSizeTheUserSetByHandIsWhatTheJobAsksForFromThenOn() {
    GrowthPolicy p = policy(4, 8, Growth.OFF);
    p.requestIs(2);
    p.gaveBack();
    now += 3_600_000;
    GrowthPolicy.Decision d = p.next(2, true);
    assertFalse(d.ask(), "a user's scale-in to 2 is not undone once the hold-off has passed");
    assertEquals(GrowthPolicy.Reason.CEILING, d.reason());
    assertTrue(d.why().contains("at the 2 workers asked for"), d.why());
    assertEquals(2, p.restatedRequest());

    p.requestIs(6);
    assertTrue(p.next(5, true).ask(), "a user's scale-out to 6 that lost a worker asks for it again");
    assertEquals(GrowthPolicy.Reason.REST_OF_REQUEST, p.next(5, true).reason());
    p.requestIs(4);
    assertEquals(0, p.restatedRequest(), "back at the submitted size: nothing to journal");
    p.requestIs(20);
    assertEquals(8, p.restatedRequest(), "never beyond max-workers");
  }

  @Test
  void growsWhileOneMoreWorkerAddsEnoughAndStopsWhereItDoesNot() {
    GrowthPolicy p = policy(2, 8, efficiency(0.5));
    curve.put(2, 200.0);
    curve.put(3, 290.0); // +90: 0.9 of an average worker (100)
    curve.put(4, 330.0); // +40: 0.41 of an average worker (96.7)
    assertTrue(p.next(2, true).ask(), p.next(2, true).why());
    assertFalse(p.next(3, true).ask(), p.next(3, true).why());
    assertTrue(p.next(3, true).why().contains("0.41"), p.next(3, true).why());
  }

  @Test
  void anUnknownNextSizeIsTriedWhenTheLastStepPaidAndNotWhenItDidNot() {
    GrowthPolicy p = policy(2, 8, efficiency(0.5));
    assertFalse(p.next(2, true).ask(), "nothing measured at the size it runs: it waits");
    curve.put(2, 200.0);
    assertTrue(p.next(2, true).ask(), "nothing known below: it tries");
    curve.put(3, 295.0);
    assertTrue(p.next(3, true).ask(), p.next(3, true).why());
    curve.put(4, 300.0);
    assertFalse(p.next(4, true).ask(), "the fourth worker added 5 samples/s: no fifth");
  }

  /** Where the curve knows the sizes ahead, every further step that pays is asked for at once. */
  @Test
  void aKnownCurveAsksAtOnceForEveryFurtherWorkerThatPays() {
    GrowthPolicy p = policy(4, 8, efficiency(0));
    curve.put(4, 400.0);
    curve.put(5, 470.0);
    curve.put(6, 560.0);
    curve.put(7, 565.0);
    curve.put(8, 560.0); // the eighth lowers it
    GrowthPolicy.Decision d = p.next(4, true);
    assertTrue(d.ask(), d.why());
    assertEquals(3, d.count(), "5, 6 and 7 each add something; 8 does not");
    assertEquals(2, p.next(5, true).count());

    GrowthPolicy half = policy(4, 8, efficiency(0.5));
    assertEquals(2, half.next(4, true).count(), "7 adds 5 samples/s, under half an average worker");
    curve.remove(6);
    assertEquals(1, half.next(4, true).count(), "6 is not known: one, and the next decision measures");

    p.asked(3);
    assertEquals("requests for 3 more workers are in flight", p.next(4, true).why());
    p.answered();
    p.answered();
    assertTrue(p.inFlight());
    p.withdrawn();
    assertFalse(p.inFlight());
  }

  @Test
  void theRestOfTheRequestAndIdleGpusWithoutACurveAreAskedForOneAtATime() {
    assertEquals(1, policy(4, 8, Growth.OFF).next(2, true).count());
    assertEquals(1, policy(2, 8, new Growth(true, Double.NaN, 0)).next(2, true).count());
  }

  @Test
  void aFallingCurveIsNeverFollowedEvenAtEfficiencyZero() {
    GrowthPolicy p = policy(2, 8, efficiency(0));
    curve.put(2, 200.0);
    curve.put(3, 190.0);
    assertFalse(p.next(2, true).ask());
  }

  @Test
  void withoutTheCurveItTakesIdleGpusUpToMaxWorkers() {
    GrowthPolicy p = policy(2, 4, new Growth(true, Double.NaN, 0));
    assertTrue(p.next(2, true).ask());
    assertTrue(p.next(3, true).ask());
    assertFalse(p.next(4, true).ask());
  }

  @Test
  void oneRequestInFlightAndNoneWhileTheJobIsNotSteadyOrProfiling() {
    GrowthPolicy p = policy(2, 8, new Growth(true, Double.NaN, 0));
    assertFalse(p.next(2, false).ask());
    p.asked(1);
    assertFalse(p.next(2, true).ask(), p.next(2, true).why());
    p.answered();
    assertTrue(p.next(3, true).ask());
    p.pause(true);
    assertFalse(p.next(3, true).ask());
    p.pause(false);
    assertTrue(p.next(3, true).ask());
  }

  @Test
  void afterGivingWorkersBackItHoldsOffForTheHoldOffTime() {
    GrowthPolicy p = policy(2, 8, new Growth(true, Double.NaN, 60_000));
    p.gaveBack();
    now += 59_999;
    assertFalse(p.next(3, true).ask(), p.next(3, true).why());
    assertFalse(p.next(1, true).ask(), "not even for the workers it asked for: the scheduler took them");
    now += 1;
    assertTrue(p.next(3, true).ask());
  }

  @Test
  void anExtraThatDidNotPayGoesBackOnceItsSizeIsSettledAndIsNotAskedForAgain() {
    Set<Integer> settled = new HashSet<>();
    ThroughputCurve measured = new ThroughputCurve() {
      @Override
      public OptionalDouble at(int n) {
        return known.at(n);
      }

      @Override
      public boolean settled(int n) {
        return settled.contains(n);
      }
    };
    GrowthPolicy p = new GrowthPolicy(2, 8, efficiency(0.5), measured, () -> now);
    curve.put(2, 200.0);
    assertTrue(p.next(2, true).ask(), "nothing known at 3: it tries");
    p.asked(1);
    p.answered();
    p.grew(3);
    curve.put(3, 230.0); // +30: 0.3 of an average worker
    assertTrue(p.giveBackLast(3, true).isEmpty(), "one window at 3 is not enough to undo it");
    settled.add(3);
    assertTrue(p.giveBackLast(3, false).isEmpty(), "not while the job changes");
    Optional<String> why = p.giveBackLast(3, true);
    assertTrue(why.isPresent() && why.get().contains("0.30"), why.toString());
    assertTrue(p.giveBackLast(3, true).isEmpty(), "judged once");
    assertFalse(p.next(2, true).ask(), "back at 2 the curve knows 3 does not pay: " + p.next(2, true).why());
  }

  @Test
  void anExtraThatPaidStaysAndSoDoesOneWithinTheRequestOrMovedByAnotherChange() {
    GrowthPolicy p = policy(2, 8, efficiency(0.5));
    curve.put(2, 200.0);
    curve.put(3, 290.0);
    p.grew(3);
    assertTrue(p.giveBackLast(3, true).isEmpty(), "+90 is 0.9 of an average worker");
    curve.put(4, 300.0);
    p.grew(4);
    assertTrue(p.giveBackLast(5, true).isEmpty(), "a user's scale-out moved the job: not ours to judge");
    assertTrue(p.giveBackLast(4, true).isEmpty(), "and the judgement is dropped");

    GrowthPolicy within = policy(4, 8, efficiency(0.5));
    within.grew(3);
    assertTrue(within.giveBackLast(3, true).isEmpty(), "3 of the 4 workers asked for stays, paid or not");
  }
}
