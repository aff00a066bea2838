package org.edl.worker.coord;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The leader's rule for "this member failed", with no clock of its own: every call passes the
 * time in nanoseconds. A member is declared failed when
 * <ul>
 *   <li>it has not reported step {@code s} for longer than the sync timeout after the first
 *       member reported {@code s} (it missed its per-batch sync);</li>
 *   <li>a recovery was asked for (another member's all-reduce or leader call failed) and it has
 *       neither asked nor reported within the sync timeout (a peer that died leaves its
 *       neighbours' sockets closed, so the living ones ask within milliseconds).</li>
 * </ul>
 * A lost ZooKeeper session is the third way; it needs no timing and {@link CoordinatorState}
 * takes it directly.
 *
 * <p>The sync timeout is the job's {@code sync-timeout-ms} when set; otherwise
 * {@code max(floor, factor x median of the recent batch times)}, so a job with one-minute
 * batches is not cut at the floor and a job with 10 ms batches still gets the floor (a shared
 * machine with two cores delays a thread by seconds under load). Steps that are slow for known
 * reasons (the first batches of a ring, a switch with its broadcast, a recovery, a checkpoint
 * snapshot) get {@code graceFactor} times as long.
 */
public final class FailureDetector {
  /** The default floor: long beside scheduling noise and GC pauses on a loaded machine. */
  public static final Duration DEFAULT_FLOOR = Duration.ofSeconds(10);
  public static final double DEFAULT_BATCH_FACTOR = 20;
  public static final double DEFAULT_GRACE_FACTOR = 3;
  /** Batch times the median is taken over. */
  static final int WINDOW = 20;

  private final long configuredNanos;
  private final long floorNanos;
  private final double batchFactor;
  private final double graceFactor;
  private final Deque<Double> recent = new ArrayDeque<>();

  /** @param configured the job's sync timeout; zero: derived from the batch times */
  public FailureDetector(Duration configured) {
    this(configured, DEFAULT_FLOOR, DEFAULT_BATCH_FACTOR, DEFAULT_GRACE_FACTOR);
  }

  public FailureDetector(Duration configured, Duration floor, double batchFactor, double graceFactor) {
    if (configured.isNegative() || floor.isNegative() || !(batchFactor > 0) || !(graceFactor >= 1)) {
      throw new IllegalArgumentException("bad failure detector settings: " + configured + ", " + floor
          + ", " + batchFactor + ", " + graceFactor);
    }
    this.configuredNanos = configured.toNanos();
    this.floorNanos = floor.toNanos();
    this.batchFactor = batchFactor;
    this.graceFactor = graceFactor;
  }

  /** A completed step's batch time (the slowest member's, as the leader saw the step complete). */
  public void batchCompleted(double seconds) {
    if (!(seconds >= 0) || Double.isInfinite(seconds)) {
      return;
    }
    recent.addLast(seconds);
    while (recent.size() > WINDOW) {
      recent.pollFirst();
    }
  }

  /** The sync timeout now; {@code grace}: for a step that is slow for a known reason. */
  public long timeoutNanos(boolean grace) {
    long base = configuredNanos > 0 ? configuredNanos
        : Math.max(floorNanos, (long) Math.min(Long.MAX_VALUE / 4, batchFactor * medianSeconds() * 1e9));
    return grace ? (long) Math.min(Long.MAX_VALUE / 2, base * graceFactor) : base;
  }

  double medianSeconds() {
    if (recent.isEmpty()) {
      return 0;
    }
    double[] s = recent.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /**
   * The members that missed the sync of a step: {@code firstReportNanos} is when its first
   * report arrived, {@code reporters} who reported it so far.
   */
  public Set<String> missedSync(Collection<String> members, Set<String> reporters, long firstReportNanos,
      boolean grace, long nowNanos) {
    Set<String> missed = new LinkedHashSet<>();
    if (nowNanos - firstReportNanos <= timeoutNanos(grace)) {
      return missed;
    }
    for (String m : members) {
      if (!reporters.contains(m)) {
        missed.add(m);
      }
    }
    return missed;
  }

  /**
   * The members silent through a recovery: it was first asked for at {@code firstAskNanos};
   * {@code answered} asked for it since or reported.
   */
  public Set<String> silentInRecovery(Collection<String> members, Set<String> answered, long firstAskNanos,
      long nowNanos) {
    Set<String> silent = new LinkedHashSet<>();
    if (nowNanos - firstAskNanos <= timeoutNanos(false)) {
      return silent;
    }
    for (String m : members) {
      if (!answered.contains(m)) {
        silent.add(m);
      }
    }
    return silent;
  }
}
