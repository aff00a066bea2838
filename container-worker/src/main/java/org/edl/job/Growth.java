package org.edl.job;


/**
 * Whether an elastic job grows into idle GPUs by itself, and how eagerly.
 *
 * @param enabled    the AM keeps asking YARN for one more worker, up to max-workers, as an elastic
 *                   extra; off: the job changes size only when told (or warned)
 * @param efficiency ask only while one more worker adds at least this fraction of what an average
 *                   worker adds now (0.5: half a worker's throughput); {@link Double#NaN}: whatever
 *                   the throughput curve says, take idle GPUs up to max-workers
 * @param holdOffMs  after the job gave workers back (a preemption warning, a scale-in), it asks for
 *                   none again for this long
 * @param mode       how the job changes its size by itself (growing, and giving back when warned):
 *                   stop-free ({@code EDL}), or {@code STOP_RESUME} (checkpoint, stop every worker,
 *                   relaunch at the new size: the baseline the benchmarks compare against)
 */
public record Growth(boolean enabled, double efficiency, long holdOffMs, ScaleMode mode) {
  public Growth {
    if (mode == null) {
      throw new InvalidInputException("mode", "null", "choose edl or stop-resume");
    }
  }

  /** Stop-free changes. */
  public Growth(boolean enabled, double efficiency, long holdOffMs) {
    this(enabled, efficiency, holdOffMs, ScaleMode.EDL);
  }

  /** {@code edl} or {@code stop-resume}, as the command line and {@code job.properties} write it. */
  public String modeText() {
    return mode == ScaleMode.STOP_RESUME ? "stop-resume" : "edl";
  }

  /** {@code edl} or {@code stop-resume}; an error names the field and the value. */
  public static ScaleMode modeOf(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(java.util.Locale.ROOT);
    return switch (t) {
      case "edl" -> ScaleMode.EDL;
      case "stop-resume" -> ScaleMode.STOP_RESUME;
      default -> throw new InvalidInputException("mode", text, "choose edl or stop-resume");
    };
  }

  public static final double DEFAULT_EFFICIENCY = 0.5;
  /** A little over the fair-share plugin's default 30 s grace period: a warning is not answered by a new ask. */
  public static final long DEFAULT_HOLD_OFF_MS = 60_000;
  /** Jobs built in code change size only when told, as tests of exact changes need. */
  public static final Growth OFF = new Growth(false, DEFAULT_EFFICIENCY, DEFAULT_HOLD_OFF_MS);
  /** What {@code edl submit} uses for an elastic job unless told otherwise. */
  public static final Growth DEFAULT = new Growth(true, DEFAULT_EFFICIENCY, DEFAULT_HOLD_OFF_MS);

  /** Whether the throughput curve decides (else idle GPUs are taken up to max-workers). */
  public boolean followsCurve() {
    return !Double.isNaN(efficiency);
  }

  /** The efficiency as written on the command line and in {@code job.properties}. */
  public String efficiencyText() {
    return followsCurve() ? Double.toString(efficiency) : "off";
  }

  /** {@code off} or a number in [0, 1]; an error names the field and the value. */
  public static double efficiencyOf(String text) {
    String t = text == null ? "" : text.trim();
    if (t.equalsIgnoreCase("off")) {
      return Double.NaN;
    }
    double e;
    try {
      e = Double.parseDouble(t);
    } catch (NumberFormatException ex) {
      throw new InvalidInputException("grow-efficiency", text, "not a number (or off)");
    }
    if (!(e >= 0 && e <= 1)) {
      throw new InvalidInputException("grow-efficiency", text, "must be between 0 and 1 (or off)");
    }
    return e;
  }
}
