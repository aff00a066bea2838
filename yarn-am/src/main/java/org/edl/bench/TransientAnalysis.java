package org.edl.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.edl.bench.Timelines.Row;

/**
 * One job's timelines seen as a series of steps, for the transient-GPU benchmark: how many samples
 * it trained in a window, and how long a steady step takes at each size. A step ends when its
 * slowest member finished it; its samples are its members' batches (the per-worker batch rule).
 */
public final class TransientAnalysis {
  /** Steps right after a change of size are not steady: the newcomers' first batches, a restart's warm-up. */
  static final int SETTLE_STEPS = 3;

  /** One step: when its last member finished it, and how many members trained it. */
  record Step(long step, long endMs, int workers) {}

  private final List<Step> steps;
  private final int perWorkerBatch;

  public TransientAnalysis(Timelines timelines, int perWorkerBatch) {
    this.perWorkerBatch = perWorkerBatch;
    Map<Long, long[]> byStep = new TreeMap<>(); // step -> {latest end, members}
    for (List<Row> rows : timelines.byWorker().values()) {
      for (Row r : rows) {
        if (r.event().equals("batch")) {
          long[] s = byStep.computeIfAbsent(r.step(), k -> new long[] {Long.MIN_VALUE, 0});
          s[0] = Math.max(s[0], r.endMs());
          s[1]++;
        }
      }
    }
    List<Step> list = new ArrayList<>();
    byStep.forEach((step, s) -> list.add(new Step(step, s[0], (int) s[1])));
    this.steps = List.copyOf(list);
  }

  List<Step> steps() {
    return steps;
  }

  /** Samples of the steps that ended in {@code [fromMs, toMs)}. */
  public long samples(long fromMs, long toMs) {
    long n = 0;
    for (Step s : steps) {
      if (s.endMs() >= fromMs && s.endMs() < toMs) {
        n += (long) s.workers() * perWorkerBatch;
      }
    }
    return n;
  }

  /** Samples per second over {@code [fromMs, toMs)}. */
  public double throughput(long fromMs, long toMs) {
    return samples(fromMs, toMs) / ((toMs - fromMs) / 1000.0);
  }

  /**
   * The step-to-step gaps (ms) of steady steps at each size: a step counts when it and the {@link
   * #SETTLE_STEPS} steps before it all had its size, and they follow each other without a hole.
   */
  public Map<Integer, List<Long>> steadyGaps() {
    Map<Integer, List<Long>> gaps = new TreeMap<>();
    for (int i = SETTLE_STEPS; i < steps.size(); i++) {
      Step s = steps.get(i);
      boolean steady = true;
      for (int j = i - SETTLE_STEPS; j < i && steady; j++) {
        Step p = steps.get(j);
        steady = p.workers() == s.workers() && p.step() == s.step() - (i - j);
      }
      if (steady) {
        gaps.computeIfAbsent(s.workers(), k -> new ArrayList<>()).add(s.endMs() - steps.get(i - 1).endMs());
      }
    }
    return gaps;
  }

  /**
   * Samples per second of a steady job of each size, from the median steady gap of all the given
   * runs together (each run's sizes where it had them).
   */
  public static Map<Integer, Double> steadyThroughput(Collection<TransientAnalysis> runs, int perWorkerBatch) {
    Map<Integer, List<Long>> pooled = new TreeMap<>();
    for (TransientAnalysis a : runs) {
      a.steadyGaps().forEach((n, g) -> pooled.computeIfAbsent(n, k -> new ArrayList<>()).addAll(g));
    }
    Map<Integer, Double> out = new TreeMap<>();
    pooled.forEach((n, g) -> out.put(n, n * perWorkerBatch * 1000.0 / median(g)));
    return out;
  }

  /**
   * Ideal samples per second over a window: the steady throughput with {@code grown} workers
   * while GPUs were idle and {@code base} workers the rest of the time, changes costing nothing.
   */
  public static double ideal(double base, double grown, double idleSeconds, double windowSeconds) {
    return (grown * idleSeconds + base * (windowSeconds - idleSeconds)) / windowSeconds;
  }

  /**
   * The shortest idle period for which a mode trains more than the baseline: what it lost to the
   * ideal in one cycle of changes (samples) over what one more GPU's worth of workers adds per
   * second ({@code grown - base}). Assumes a change costs the same however long the idle period.
   */
  public static double breakEvenIdleSeconds(double lostSamplesPerCycle, double base, double grown) {
    return grown > base ? Math.max(0, lostSamplesPerCycle) / (grown - base) : Double.POSITIVE_INFINITY;
  }

  static double median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
  }
}
