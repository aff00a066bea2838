package org.edl.scheduler.sim;

/**
 * One job of a trace: when it was submitted (seconds since the epoch, UTC), how long it ran at its
 * own GPU count, the GPUs it asked for, its user (Philly's virtual cluster) and, where the trace
 * says, its model (null otherwise).
 */
public record TraceJob(long id, long submitEpochS, double durationS, int gpus, String user, String model) {
  public TraceJob {
    if (gpus <= 0) {
      throw new IllegalArgumentException("gpus " + gpus);
    }
  }
}
