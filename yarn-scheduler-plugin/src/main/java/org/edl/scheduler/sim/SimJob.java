package org.edl.scheduler.sim;

import org.edl.scheduler.core.policy.PolicyJob;

/** One job's state in a run: the view the policy gets, and what the engine needs to advance it. */
final class SimJob implements PolicyJob {
  final int index;
  final TraceJob trace;
  final int userIndex;
  final ThroughputModel model;
  final int requested;
  final double submit;
  final double totalWork;

  int gpus;
  int[] held = new int[0];
  double done;
  double attained;
  double executed;
  double lastUpdate;
  double pauseUntil;
  double lastStopped;
  double start = -1;
  double finish = -1;
  int scaleOps;
  int preemptions;
  int version;
  boolean arrived;

  SimJob(int index, TraceJob trace, int userIndex, ThroughputModel model, int requested, double submit) {
    this.index = index;
    this.trace = trace;
    this.userIndex = userIndex;
    this.model = model;
    this.requested = requested;
    this.submit = submit;
    // Work in seconds of one GPU of this model: the trace's duration at the requested size.
    this.totalWork = trace.durationS() * model.speedup(requested);
    this.lastStopped = submit;
    this.lastUpdate = submit;
  }

  /** Brings progress and attained service up to {@code now}. */
  void advance(double now) {
    if (gpus > 0 && now > lastUpdate) {
      double from = Math.max(lastUpdate, pauseUntil);
      if (now > from) {
        done = Math.min(totalWork, done + model.speedup(gpus) * (now - from));
      }
      attained += gpus * (now - lastUpdate);
      executed += now - lastUpdate;
    }
    lastUpdate = Math.max(lastUpdate, now);
  }

  double completionTime(double now) {
    return Math.max(now, pauseUntil) + (totalWork - done) / model.speedup(gpus);
  }

  @Override
  public long id() {
    return index;
  }

  @Override
  public String user() {
    return trace.user();
  }

  @Override
  public int requestedGpus() {
    return requested;
  }

  @Override
  public double submitTime() {
    return submit;
  }

  @Override
  public int gpus() {
    return gpus;
  }

  @Override
  public double attainedGpuSeconds(double now) {
    return attained + (now > lastUpdate ? gpus * (now - lastUpdate) : 0);
  }

  @Override
  public double executedSeconds(double now) {
    return executed + (gpus > 0 && now > lastUpdate ? now - lastUpdate : 0);
  }

  @Override
  public double lastStoppedAt() {
    return lastStopped;
  }

  @Override
  public double speedup(int n) {
    return model.speedup(n);
  }

  @Override
  public String toString() {
    return "job " + index + " (" + requested + " GPUs, " + gpus + " held)";
  }
}
