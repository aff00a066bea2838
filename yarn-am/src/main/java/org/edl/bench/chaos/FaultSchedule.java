package org.edl.bench.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The faults of one chaos run, drawn from a seed alone (no clock), so that a seed names a run
 * that can be repeated. Every schedule keeps the promises the job can keep:
 * <ul>
 *   <li>its worker failures ({@link Fault#workerFailures}) stay within {@code maxWorkerFailures}:
 *       a job that loses more is failed by its AM by design, which says nothing about recovery;</li>
 *   <li>at most one AM kill: YARN gives the AM two attempts;</li>
 *   <li>each fault starts at least {@code gapSeconds} after the previous one ended (a pause ends
 *       at its SIGCONT), so that each recovery can finish before the next fault;</li>
 *   <li>faults start inside the window, while the job is surely training;</li>
 *   <li>a pause is clearly short (at most half of {@code detectSeconds}: not declared failed) or
 *       clearly long (two to three times it: declared failed and fenced), never near the
 *       threshold, where whether it costs a failure would be a race.</li>
 * </ul>
 * Times are whole tenths of a second and pauses whole seconds, so the compact form
 * ({@link #compact()}) is exact.
 *
 * @param seed   what the schedule was drawn from
 * @param faults in time order
 */
public record FaultSchedule(long seed, List<Fault> faults) {

  /**
   * What a schedule must fit.
   *
   * @param windowStartSeconds earliest fault, seconds after training started
   * @param windowEndSeconds   latest fault start
   * @param maxWorkerFailures  the job's {@code max-worker-failures}
   * @param detectSeconds      how long a silent worker takes to be declared failed (the job's
   *                           sync timeout)
   * @param gapSeconds         from the end of one fault to the start of the next
   * @param maxFaults          faults per run at most (fewer when they do not fit the window)
   */
  public record Limits(double windowStartSeconds, double windowEndSeconds, int maxWorkerFailures,
      double detectSeconds, double gapSeconds, int maxFaults) {
    public Limits {
      if (!(windowStartSeconds >= 0 && windowEndSeconds >= windowStartSeconds)) {
        throw new IllegalArgumentException("fault window " + windowStartSeconds + ".." + windowEndSeconds
            + " s: must start at 0 or later and not end before it starts");
      }
      if (maxWorkerFailures < 0) {
        throw new IllegalArgumentException("maxWorkerFailures must be 0 or more: " + maxWorkerFailures);
      }
      if (!(detectSeconds >= 2)) {
        throw new IllegalArgumentException("detectSeconds must be 2 or more (a short pause lasts 1 s to half of it): "
            + detectSeconds);
      }
      if (!(gapSeconds >= 0)) {
        throw new IllegalArgumentException("gapSeconds must be 0 or more: " + gapSeconds);
      }
      if (maxFaults < 1) {
        throw new IllegalArgumentException("maxFaults must be 1 or more: " + maxFaults);
      }
    }

    /** Shortest and longest pause that costs nothing: 1 s to half the detection time. */
    int shortPauseMin() {
      return 1;
    }

    int shortPauseMax() {
      return Math.max(1, (int) Math.floor(detectSeconds / 2));
    }

    /** Shortest and longest pause that is sure to be declared a failure: 2x to 3x the detection time. */
    int longPauseMin() {
      return (int) Math.ceil(2 * detectSeconds);
    }

    int longPauseMax() {
      return (int) Math.ceil(3 * detectSeconds);
    }
  }

  public FaultSchedule {
    faults = List.copyOf(faults);
  }

  /**
   * Draws the schedule: first how many faults (1 to {@code maxFaults}), then each one's kind,
   * uniformly among those the remaining budget allows (a pause is long half of the time when a
   * failure is left to spend), then, after dropping the last faults while they do not fit the
   * window with their gaps, the start times, uniformly over the room left.
   */
  public static FaultSchedule generate(long seed, Limits limits) {
    Random random = new Random(seed);
    int wanted = 1 + random.nextInt(limits.maxFaults());
    List<Fault.Kind> kinds = new ArrayList<>();
    List<Integer> pauses = new ArrayList<>();
    int budget = limits.maxWorkerFailures();
    boolean amKilled = false;
    for (int i = 0; i < wanted; i++) {
      List<Fault.Kind> allowed = new ArrayList<>(List.of(Fault.Kind.PAUSE_WORKER, Fault.Kind.PAUSE_LEADER));
      if (budget > 0) {
        allowed.addAll(List.of(Fault.Kind.KILL_WORKER, Fault.Kind.KILL_LEADER));
      }
      if (!amKilled) {
        allowed.add(Fault.Kind.KILL_AM);
      }
      Fault.Kind kind = allowed.get(random.nextInt(allowed.size()));
      int pause = 0;
      if (kind.isPause()) {
        boolean isLong = budget > 0 && random.nextBoolean();
        pause = isLong ? between(random, limits.longPauseMin(), limits.longPauseMax())
            : between(random, limits.shortPauseMin(), limits.shortPauseMax());
      }
      Fault probe = new Fault(0, kind, pause);
      budget -= probe.workerFailures(limits.detectSeconds());
      amKilled |= kind == Fault.Kind.KILL_AM;
      kinds.add(kind);
      pauses.add(pause);
    }
    long start = tenths(limits.windowStartSeconds());
    long window = tenths(limits.windowEndSeconds()) - start;
    long gap = tenths(limits.gapSeconds());
    while (kinds.size() > 1 && spacing(pauses, kinds.size(), gap) > window) {
      kinds.remove(kinds.size() - 1);
      pauses.remove(pauses.size() - 1);
    }
    int n = kinds.size();
    long room = window - spacing(pauses, n, gap);
    long[] offsets = new long[n];
    for (int i = 0; i < n; i++) {
      offsets[i] = room == 0 ? 0 : (long) (random.nextDouble() * (room + 1));
    }
    Arrays.sort(offsets);
    List<Fault> faults = new ArrayList<>();
    long before = 0; // the gaps and pauses of the faults before this one
    for (int i = 0; i < n; i++) {
      faults.add(new Fault((start + offsets[i] + before) / 10.0, kinds.get(i), pauses.get(i)));
      before += gap + pauses.get(i) * 10L;
    }
    return new FaultSchedule(seed, faults);
  }

  /** The worker failures the whole schedule costs. */
  public int workerFailures(double detectSeconds) {
    return faults.stream().mapToInt(f -> f.workerFailures(detectSeconds)).sum();
  }

  /** {@code kill-worker@12.3;pause-leader@30.1/25s}; empty for no faults. */
  public String compact() {
    return faults.stream().map(Fault::compact).collect(Collectors.joining(";"));
  }

  /** Tenths of a second from the first fault's start to the last one's: the gaps and the pauses between. */
  private static long spacing(List<Integer> pauses, int n, long gap) {
    long s = 0;
    for (int i = 0; i < n - 1; i++) {
      s += gap + pauses.get(i) * 10L;
    }
    return s;
  }

  private static int between(Random random, int min, int max) {
    return min + random.nextInt(max - min + 1);
  }

  private static long tenths(double seconds) {
    return Math.round(seconds * 10);
  }
}
