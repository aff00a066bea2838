package org.edl.am;

/** How the job ended, as the AM unregisters it. */
public record JobOutcome(boolean succeeded, String diagnostics) {
  public static JobOutcome success(String diagnostics) {
    return new JobOutcome(true, diagnostics);
  }

  public static JobOutcome failure(String diagnostics) {
    return new JobOutcome(false, diagnostics);
  }
}
