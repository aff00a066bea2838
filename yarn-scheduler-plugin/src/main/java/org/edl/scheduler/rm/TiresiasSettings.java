package org.edl.scheduler.rm;

import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.edl.scheduler.core.policy.TiresiasParams;

/**
 * The Elastic-Tiresias mode's settings in the ResourceManager's {@code yarn-site.xml}, with the
 * simulator's defaults (its {@code --queue-limits}, {@code --waiting-threshold},
 * {@code --min-fraction}). A bad value stops the RM at start-up naming the key and the value.
 */
public final class TiresiasSettings {
  /** The queues' attained-service bounds in GPU-seconds, ascending (Tiresias: 500,10000). */
  public static final String QUEUE_LIMITS = "edl.scheduler.tiresias.queue-limits";
  /** N: while more applications than this wait, lower-priority ones are scaled in (10). */
  public static final String WAITING_THRESHOLD = "edl.scheduler.tiresias.waiting-threshold";
  /** r: such a scale-in leaves an application at least ceil(r x its request) GPUs (0.5). */
  public static final String MIN_FRACTION = "edl.scheduler.tiresias.min-fraction";

  /** What {@value #QUEUE_LIMITS} must be, for messages. */
  public static final String QUEUE_LIMITS_EXPECTED = "ascending positive GPU-seconds separated by commas (e.g. 500,10000)";

  private TiresiasSettings() {}

  /**
   * The queue bounds {@code raw} gives ({@value #QUEUE_LIMITS}'s form).
   *
   * @throws IllegalArgumentException unless they are {@link #QUEUE_LIMITS_EXPECTED}
   */
  public static double[] queueLimits(String raw) {
    double[] limits = Arrays.stream(raw.split(",")).map(String::trim).mapToDouble(Double::parseDouble).toArray();
    TiresiasParams d = TiresiasParams.DEFAULT;
    new TiresiasParams(limits, d.starvationKnob(), d.waitingThreshold(), d.minFraction(), d.maxFactor());
    return limits;
  }

  static TiresiasParams from(Configuration conf) {
    TiresiasParams d = TiresiasParams.DEFAULT;
    double[] limits = d.queueLimits();
    String raw = conf.getTrimmed(QUEUE_LIMITS);
    if (raw != null) {
      try {
        limits = queueLimits(raw);
      } catch (IllegalArgumentException e) {
        throw refused(QUEUE_LIMITS, raw, QUEUE_LIMITS_EXPECTED);
      }
    }
    int n = d.waitingThreshold();
    raw = conf.getTrimmed(WAITING_THRESHOLD);
    if (raw != null) {
      try {
        n = Integer.parseInt(raw);
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0) {
        throw refused(WAITING_THRESHOLD, raw, "a whole number of applications >= 0");
      }
    }
    double r = d.minFraction();
    raw = conf.getTrimmed(MIN_FRACTION);
    if (raw != null) {
      try {
        r = Double.parseDouble(raw);
      } catch (NumberFormatException e) {
        r = Double.NaN;
      }
      if (!(r > 0 && r <= 1)) {
        throw refused(MIN_FRACTION, raw, "a fraction in (0, 1]");
      }
    }
    return new TiresiasParams(limits, d.starvationKnob(), n, r, d.maxFactor());
  }

  private static YarnRuntimeException refused(String key, String value, String expected) {
    return new YarnRuntimeException(key + " must be " + expected + ", was '" + value + "'");
  }
}
