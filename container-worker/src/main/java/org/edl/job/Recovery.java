package org.edl.job;

import java.util.Locale;

/**
 * How a job survives a worker that fails (dies, misses its per-batch sync, or loses its ZooKeeper
 * session).
 *
 * @param mode              {@link Mode#CONSISTENT} (the default) or {@link Mode#APPROXIMATE}
 * @param syncTimeoutMs     a worker that has not reported a step this long after the first member
 *                          did is declared failed; 0: derived from the job's batch time
 * @param maxWorkerFailures failures the AM replaces before it gives up and fails the job
 */
public record Recovery(Mode mode, long syncTimeoutMs, int maxWorkerFailures) {

  /** Environment variable that asks for approximate recovery, as in the EDL paper. */
  public static final String APPROXIMATE_ENV = "USE_APPX_RECOVERY";
  public static final int DEFAULT_MAX_WORKER_FAILURES = 3;
  public static final Recovery DEFAULT = new Recovery(Mode.CONSISTENT, 0, DEFAULT_MAX_WORKER_FAILURES);

  public enum Mode {
    /** Survivors and a replacement reload the latest checkpoint: no sample is counted twice. */
    CONSISTENT,
    /** Survivors form a new ring at once and redo only the current batch. */
    APPROXIMATE;

    /** As on the command line and in {@code job.properties}. */
    public String flag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public Recovery validate() {
    if (mode == null) {
      throw new InvalidInputException("recovery", null, "choose consistent or approximate");
    }
    if (syncTimeoutMs < 0) {
      throw new InvalidInputException("sync-timeout-ms", syncTimeoutMs,
          "must be 0 (derived from the batch time) or more");
    }
    if (maxWorkerFailures < 0) {
      throw new InvalidInputException("max-worker-failures", maxWorkerFailures, "must be 0 or more");
    }
    return this;
  }

  public Recovery withMode(Mode newMode) {
    return new Recovery(newMode, syncTimeoutMs, maxWorkerFailures);
  }

  /** {@code consistent} / {@code approximate}, as on the command line. */
  public static Mode modeOf(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    return switch (t) {
      case "consistent" -> Mode.CONSISTENT;
      case "approximate", "appx" -> Mode.APPROXIMATE;
      default -> throw new InvalidInputException("recovery", text, "choose consistent or approximate");
    };
  }

  /** {@code USE_APPX_RECOVERY=1} (or true/yes) in an environment asks for approximate recovery. */
  public static boolean approximateRequested(String envValue) {
    if (envValue == null) {
      return false;
    }
    String v = envValue.trim().toLowerCase(Locale.ROOT);
    return v.equals("1") || v.equals("true") || v.equals("yes");
  }
}
