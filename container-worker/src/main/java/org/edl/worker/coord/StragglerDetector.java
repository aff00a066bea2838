package org.edl.worker.coord;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who is a straggler, from each completed step's per-worker batch times: a worker slower than
 * {@code factor} x the step's median for {@code batches} consecutive steps. The times must be
 * each worker's own compute time before the all-reduce; the all-reduce makes every member wait
 * for the slowest, so whole-batch times are all alike.
 *
 * <p>One removal at a time: while the caller has a change in flight nothing is named (the counts
 * go on), and a worker is named once. Never below min-workers: while the ring is at min-workers
 * nothing is named. A worker that is not slower in one step starts counting again from zero; one
 * that is absent from a step (it left) is forgotten. Pure logic, no clock, not thread-safe.
 *
 * <p>Two kinds of slowness are not a straggler's. A newcomer (a worker first seen after the
 * detector's first step, so one that joined by a scale-out or a replacement) warms up, its JIT and
 * caches cold, while the others run at speed: it is not judged for its first {@code warmupSteps}
 * steps. And a difference under {@code minDifferenceSeconds} costs the ring nothing worth a
 * switch, whatever the ratio: with sub-millisecond batches a worker at 0.7 ms against a median of
 * 0.03 ms is 22x "slower" only because of timer and scheduling noise.
 */
public final class StragglerDetector {
  /** A worker named for removal: its time and the median in the step that named it. */
  public record Straggler(String workerId, double seconds, double medianSeconds, int batches) {
    public String describe() {
      return String.format("straggler %s: %.1f ms per batch against the median %.1f ms (%.2fx) for %d"
          + " consecutive batches", workerId, seconds * 1e3, medianSeconds * 1e3,
          medianSeconds > 0 ? seconds / medianSeconds : Double.POSITIVE_INFINITY, batches);
    }
  }

  /** Steps a newcomer runs before it is judged. */
  public static final int WARMUP_STEPS = 20;
  /** A worker this little slower than the median is never slow (1 ms). */
  public static final double MIN_DIFFERENCE_SECONDS = 0.001;

  private final double factor;
  private final int batches;
  private final int minWorkers;
  private final int warmupSteps;
  private final double minDifferenceSeconds;
  private final Map<String, Integer> slowRuns = new HashMap<>();
  /** Newcomers still warming up: the steps each has left before it is judged. */
  private final Map<String, Integer> warming = new HashMap<>();
  /** Whether a step (or a predecessor's counts) has been seen: who comes after is a newcomer. */
  private boolean started;
  private String named;

  /**
   * @param factor     a worker is slow in a step when its time exceeds factor x the median;
   *                   0 turns detection off
   * @param batches    consecutive slow steps that make a straggler; 0 turns detection off
   * @param minWorkers the ring never shrinks below this by a removal
   */
  public StragglerDetector(double factor, int batches, int minWorkers) {
    this(factor, batches, minWorkers, WARMUP_STEPS, MIN_DIFFERENCE_SECONDS);
  }

  /**
   * @param warmupSteps          steps a newcomer runs before it is judged
   * @param minDifferenceSeconds a worker is slow only when also this much slower than the median
   */
  public StragglerDetector(double factor, int batches, int minWorkers, int warmupSteps, double minDifferenceSeconds) {
    if (warmupSteps < 0 || minDifferenceSeconds < 0) {
      throw new IllegalArgumentException("bad straggler warm-up " + warmupSteps + " or minimum difference "
          + minDifferenceSeconds);
    }
    this.factor = factor;
    this.batches = batches;
    this.minWorkers = minWorkers;
    this.warmupSteps = warmupSteps;
    this.minDifferenceSeconds = minDifferenceSeconds;
  }

  public boolean enabled() {
    return factor > 0 && batches > 0;
  }

  /**
   * One completed step.
   *
   * @param seconds          each ring member's compute time for the step
   * @param changeInFlight   a topology change (any removal) is pending: name nobody now
   * @return the straggler to remove now, if there is one
   */
  public Optional<Straggler> step(Map<String, Double> seconds, boolean changeInFlight) {
    if (!enabled() || seconds.isEmpty()) {
      return Optional.empty();
    }
    slowRuns.keySet().retainAll(seconds.keySet());
    warming.keySet().retainAll(seconds.keySet());
    if (named != null && !seconds.containsKey(named)) {
      named = null;
    }
    if (started) {
      for (String id : seconds.keySet()) {
        if (!slowRuns.containsKey(id)) {
          warming.put(id, warmupSteps);
        }
      }
    }
    started = true;
    double median = median(seconds.values());
    for (Map.Entry<String, Double> e : seconds.entrySet()) {
      boolean slow = !warmingUp(e.getKey()) && e.getValue() > factor * median
          && e.getValue() - median >= minDifferenceSeconds;
      slowRuns.put(e.getKey(), slow ? slowRuns.getOrDefault(e.getKey(), 0) + 1 : 0);
    }
    if (changeInFlight || named != null || seconds.size() - 1 < minWorkers) {
      return Optional.empty();
    }
    String worst = null;
    for (Map.Entry<String, Double> e : seconds.entrySet()) {
      if (slowRuns.get(e.getKey()) >= batches
          && (worst == null || e.getValue() > seconds.get(worst))) {
        worst = e.getKey();
      }
    }
    if (worst == null) {
      return Optional.empty();
    }
    named = worst;
    int run = slowRuns.put(worst, 0);
    return Optional.of(new Straggler(worst, seconds.get(worst), median, run));
  }

  /** Counts down a newcomer's warm-up by this step; true while it is not judged yet. */
  private boolean warmingUp(String workerId) {
    Integer left = warming.get(workerId);
    if (left == null) {
      return false;
    }
    if (left <= 1) {
      warming.remove(workerId);
    } else {
      warming.put(workerId, left - 1);
    }
    return true;
  }

  /** Each worker's current run of consecutive slow steps, for a successor leader. */
  public Map<String, Integer> runs() {
    return Map.copyOf(slowRuns);
  }

  /** Goes on from a previous leader's {@link #runs()}. */
  public void resume(Map<String, Integer> runs) {
    runs.forEach((id, n) -> slowRuns.put(id, Math.max(0, n)));
    started = started || !runs.isEmpty();
  }

  /** The worker was not removed after all (the leave was refused): it may be named again. */
  public void release(String workerId) {
    if (workerId.equals(named)) {
      named = null;
    }
  }

  static double median(java.util.Collection<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
