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

  private final double factor;
  private final int batches;
  private final int minWorkers;
  private final Map<String, Integer> slowRuns = new HashMap<>();
  private String named;

  /**
   * @param factor     a worker is slow in a step when its time exceeds factor x the median;
   *                   0 turns detection off
   * @param batches    consecutive slow steps that make a straggler; 0 turns detection off
   * @param minWorkers the ring never shrinks below this by a removal
   */
  public StragglerDetector(double factor, int batches, int minWorkers) {
    this.factor = factor;
    this.batches = batches;
    this.minWorkers = minWorkers;
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
    if (named != null && !seconds.containsKey(named)) {
      named = null;
    }
    double median = median(seconds.values());
    for (Map.Entry<String, Double> e : seconds.entrySet()) {
      boolean slow = e.getValue() > factor * median;
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

  /** Each worker's current run of consecutive slow steps, for a successor leader. */
  public Map<String, Integer> runs() {
    return Map.copyOf(slowRuns);
  }

  /** Goes on from a previous leader's {@link #runs()}. */
  public void resume(Map<String, Integer> runs) {
    runs.forEach((id, n) -> slowRuns.put(id, Math.max(0, n)));
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
