package org.edl.worker.coord;

/**
 * How much of a member's even part of the global batch each joiner computes in its first step
 * after a switch. Every survivor starts that step as soon as the switch step ends, a joiner only
 * once the model has arrived, some lag later: with even parts, every member's all-reduce waits
 * that lag for it. With share {@code s} for each joiner and the rest split evenly among the
 * {@code m} survivors, all end together when (a part's compute time proportional to its samples,
 * {@code c} that of an even part, {@code n = m + j} members of whom {@code j} joiners)
 * {@code lag + s n c / (m + j s) = n c / (m + j s)}, that is
 * {@code s = (n c - m lag) / (n c + j lag)}.
 *
 * <p>Pure arithmetic: the leader decides the share once per switch ({@link SwitchPlan}) and every
 * member slices the first step by the order, so all agree on which samples are whose.
 */
public final class JoinerShare {
  /** A joiner keeps at least this share: a lag judged too long must not leave its GPU idle. */
  static final double MIN = 0.25;
  /** The lag's fixed part: the broadcaster's dial, the joiner's set-up before its first batch. */
  static final double FIXED_LAG_SECONDS = 0.05;
  /**
   * The model's transfer, over a link the broadcaster dialled before the switch, into a newcomer
   * whose JVM has not run that code yet: on the busy two-core machine of the benchmarks a joiner
   * started its first step 0.08-0.26 s after the survivors (102 MB; 0.19 and 0.26 s in the
   * scaling benchmark), and 0.6 GB/s puts the expected lag at 0.22 s, about two thirds of the way
   * up that range. Erring short costs more than erring long: a joiner that ends late holds all
   * {@code m} survivors, one that ends early idles alone (while each survivor computes a little
   * more), so the best guess lies above the middle of the lags seen.
   */
  static final double BROADCAST_BYTES_PER_SECOND = 6e8;

  private JoinerShare() {}

  /**
   * @param computeSeconds a member's time before the all-reduce for an even part
   * @param lagSeconds     how much later than the survivors a joiner starts its first step
   * @return the share, in hundredths, in [{@link #MIN}, 1]; 1 when nobody joins or nothing is known
   */
  public static double of(int survivors, int joiners, double computeSeconds, double lagSeconds) {
    if (joiners < 1 || survivors < 1 || !(computeSeconds > 0) || !(lagSeconds > 0)) {
      return 1;
    }
    int n = survivors + joiners;
    double s = (n * computeSeconds - survivors * lagSeconds) / (n * computeSeconds + joiners * lagSeconds);
    return Math.round(Math.max(MIN, Math.min(1, s)) * 100) / 100.0;
  }

  /** A joiner's expected lag for a model of {@code floats} parameters; 0 when the size is unknown. */
  public static double expectedLagSeconds(long floats) {
    return floats <= 0 ? 0 : FIXED_LAG_SECONDS + floats * (double) Float.BYTES / BROADCAST_BYTES_PER_SECOND;
  }

  /**
   * Each member's weight in the first step on a ring of {@code size} whose members
   * {@code isJoiner} says joined with {@code share}: 1000 for the others, the share in
   * thousandths for a joiner. Integers, so every member computes the same slices.
   */
  public static long[] weights(int size, java.util.function.IntPredicate isJoiner, double share) {
    long[] w = new long[size];
    long joinerWeight = Math.max(1, Math.round(share * 1000));
    for (int r = 0; r < size; r++) {
      w[r] = isJoiner.test(r) ? joinerWeight : 1000;
    }
    return w;
  }
}
