package org.edl.scheduler.core.policy;

/**
 * Parameters of discretized 2D-LAS (Tiresias) and of its elastic variant.
 *
 * @param queueLimits attained-service bounds of the queues in GPU-seconds, ascending (Tiresias:
 *     500 and 10,000, so three queues)
 * @param starvationKnob a waiting job whose wait since it last ran reaches {@code executed time x
 *     knob} is promoted to the top queue; 0 turns promotion off (Tiresias' default)
 * @param waitingThreshold N: when more jobs than this wait, Elastic-Tiresias scales in running
 *     jobs of lower priority (10)
 * @param minFraction r: an elastic job may run on as few as {@code ceil(r x requested)} GPUs (0.5)
 * @param maxFactor an elastic job may grow to {@code maxFactor x requested} GPUs (2)
 * @param resizeHoldS hysteresis: a running elastic job started or resized less than this many
 *     seconds ago keeps its size (it may still be preempted); 0 turns it off (the default)
 * @param floorsKept whether a running elastic job keeps its floor ({@code ceil(r x requested)})
 *     where the walk passes it over, instead of being preempted, and the GPUs it keeps go to no
 *     other job: what the ResourceManager does, where the minimum an EDL job's tag guarantees is
 *     never preempted and only jobs of one size are paused. Off: Tiresias preempts any job it does
 *     not reach (the paper's reading, the simulator's default)
 */
public record TiresiasParams(double[] queueLimits, double starvationKnob, int waitingThreshold, double minFraction,
    double maxFactor, double resizeHoldS, boolean floorsKept) {
  public static final TiresiasParams DEFAULT = new TiresiasParams(new double[] {500, 10_000}, 0, 10, 0.5, 2);

  /** Without hysteresis. */
  public TiresiasParams(double[] queueLimits, double starvationKnob, int waitingThreshold, double minFraction,
      double maxFactor) {
    this(queueLimits, starvationKnob, waitingThreshold, minFraction, maxFactor, 0);
  }

  /** Elastic jobs' floors preemptible. */
  public TiresiasParams(double[] queueLimits, double starvationKnob, int waitingThreshold, double minFraction,
      double maxFactor, double resizeHoldS) {
    this(queueLimits, starvationKnob, waitingThreshold, minFraction, maxFactor, resizeHoldS, false);
  }

  /** The same with elastic jobs' floors kept or not ({@link #floorsKept}). */
  public TiresiasParams withFloorsKept(boolean kept) {
    return new TiresiasParams(queueLimits, starvationKnob, waitingThreshold, minFraction, maxFactor, resizeHoldS, kept);
  }

  public TiresiasParams {
    queueLimits = queueLimits.clone();
    for (int i = 0; i < queueLimits.length; i++) {
      if (!(queueLimits[i] > 0) || (i > 0 && queueLimits[i] <= queueLimits[i - 1])) {
        throw new IllegalArgumentException("queue limits must be positive and ascending: " + java.util.Arrays.toString(queueLimits));
      }
    }
    if (starvationKnob < 0) {
      throw new IllegalArgumentException("starvation knob " + starvationKnob + " < 0");
    }
    if (waitingThreshold < 0) {
      throw new IllegalArgumentException("waiting threshold N " + waitingThreshold + " < 0");
    }
    if (!(minFraction > 0 && minFraction <= 1)) {
      throw new IllegalArgumentException("r " + minFraction + " not in (0, 1]");
    }
    if (!(resizeHoldS >= 0)) {
      throw new IllegalArgumentException("resize hold " + resizeHoldS + " s < 0");
    }
    if (!(maxFactor >= 1)) {
      throw new IllegalArgumentException("max factor " + maxFactor + " < 1");
    }
  }

  @Override
  public double[] queueLimits() {
    return queueLimits.clone();
  }

  int queueOf(double service) {
    int q = 0;
    while (q < queueLimits.length && service >= queueLimits[q]) {
      q++;
    }
    return q;
  }

  double limit(int queue) {
    return queue < queueLimits.length ? queueLimits[queue] : Double.POSITIVE_INFINITY;
  }
}
