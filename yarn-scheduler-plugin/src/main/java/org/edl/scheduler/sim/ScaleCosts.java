package org.edl.scheduler.sim;

/**
 * What changing a running job's GPU count costs it, in seconds of lost progress, from the measured
 * EDL and stop-resume figures in docs/benchmarks.md ("Scaling: EDL against stop-resume", quiet
 * run of 2026-12-03: 4 -> 5 and 5 -> 4 workers).
 *
 * <p>The simulator charges a change as a pause of the job at its new size. EDL scale-out: the
 * existing workers go on at the old size while the newcomers start ({@code edlNewcomerStartS}),
 * then stop for the model broadcast ({@code edlScaleOutStopS}); the equivalent pause at the new
 * size is {@code stop + start x (1 - old speed / new speed)}. EDL scale-in stops nobody
 * ({@code edlScaleInStopS}). Stop-resume stops the whole job for the full restart, out
 * ({@code srScaleOutStopS}) and in ({@code srScaleInStopS}) alike. A job preempted to zero GPUs
 * pays {@code restartS} when it resumes, under every policy (it restarts from its checkpoint), and
 * every job pays {@code startS} when it first starts (0 unless set: the trace's durations are
 * Philly's run times, start-up included).
 */
public record ScaleCosts(String mechanism, double edlScaleOutStopS, double edlNewcomerStartS, double edlScaleInStopS,
    double srScaleOutStopS, double srScaleInStopS, double restartS, double startS) {
  /** docs/benchmarks.md: stop 0.17 s, end-to-end 10.68 s out; 0.00 s in; stop-resume 22.57 s / 24.07 s. */
  public static ScaleCosts measured(String mechanism) {
    if (!mechanism.equals("edl") && !mechanism.equals("stop-resume")) {
      throw new IllegalArgumentException("scaling mechanism '" + mechanism + "': expected edl or stop-resume");
    }
    return new ScaleCosts(mechanism, 0.17, 10.51, 0.0, 22.57, 24.07, 22.57, 0);
  }

  public static ScaleCosts free() {
    return new ScaleCosts("free", 0, 0, 0, 0, 0, 0, 0);
  }

  /** These costs with a job's first start and its resume after preemption set on their own; null keeps one. */
  public ScaleCosts withStartAndRestart(Double start, Double restart) {
    return new ScaleCosts(mechanism, edlScaleOutStopS, edlNewcomerStartS, edlScaleInStopS, srScaleOutStopS,
        srScaleInStopS, restart == null ? restartS : restart, start == null ? startS : start);
  }

  /** Seconds of lost progress at the new size for a change from {@code from} to {@code to} > 0 GPUs. */
  double pause(int from, int to, double speedFrom, double speedTo) {
    if (from == 0) {
      return 0;
    }
    if (mechanism.equals("stop-resume")) {
      return to > from ? srScaleOutStopS : srScaleInStopS;
    }
    if (to > from) {
      return edlScaleOutStopS + edlNewcomerStartS * Math.max(0, 1 - speedFrom / speedTo);
    }
    return edlScaleInStopS;
  }
}
