package org.edl.am;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;
import org.edl.thrift.JobProgress;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.edl.job.ScaleMode;

/**
 * One {@code profile(min, max, batches)}: the job goes to {@code max} workers (paying the
 * newcomers' start-up once), then runs {@code batches} batches at each size and scales in by one
 * until {@code min}, recording the throughput at each. The decisions only: the fleet changes the
 * size, the leader's progress reports say when a size is reached and how far training got.
 *
 * <p>Throughput at a size is measured by the AM from two progress reports at that size, the
 * first one after the ring reached it and the first one at least {@code batches} steps later:
 * steps x samples per step / the time between the reports on the AM's clock. (The leader's own
 * samples/s averages over its last steps, which straddle the previous size right after a switch.)
 * The job stays at {@code min} workers afterwards.
 *
 * <p>Not thread-safe: the AM's main thread only.
 */
final class ProfileRun {
  private final WorkerFleet fleet;
  private final int min;
  private final int max;
  private final int batches;
  private final IntToLongFunction samplesPerStep;
  private final LongSupplier nanos;
  private final long begun;
  private final List<ProfilePoint> points = new ArrayList<>();
  private final CompletableFuture<ProfileResult> result = new CompletableFuture<>();
  private int size;
  private long startStep = -1;
  private long startNanos;

  /**
   * @param samplesPerStep the job's global batch at a number of workers (the batch rule)
   * @param nanos          the AM's clock
   */
  ProfileRun(WorkerFleet fleet, int min, int max, int batches, IntToLongFunction samplesPerStep,
      LongSupplier nanos) {
    this.fleet = fleet;
    this.min = min;
    this.max = max;
    this.batches = batches;
    this.samplesPerStep = samplesPerStep;
    this.nanos = nanos;
    this.begun = nanos.getAsLong();
    this.size = max;
  }

  /**
   * Checks the request against the job's limits and brings the job to {@code max} workers.
   *
   * @throws FleetRefusal naming the argument out of range, or the job's state; nothing changed then
   */
  static ProfileRun begin(WorkerFleet fleet, int jobMin, int jobMax, int min, int max, int batches,
      IntToLongFunction samplesPerStep, LongSupplier nanos) throws FleetRefusal {
    if (min < jobMin) {
      throw WorkerFleet.error("minWorkers", Integer.toString(min), "below the job's min-workers=" + jobMin);
    }
    if (max > jobMax) {
      throw WorkerFleet.error("maxWorkers", Integer.toString(max), "above the job's max-workers=" + jobMax);
    }
    if (min > max) {
      throw WorkerFleet.error("minWorkers", Integer.toString(min), "more than maxWorkers=" + max);
    }
    if (batches < 1) {
      throw WorkerFleet.error("batches", Integer.toString(batches), "at least one batch per size");
    }
    fleet.requireChangeable("profile");
    int target = fleet.status().targetWorkers();
    if (target < max) {
      fleet.scaleOut(max - target, ScaleMode.EDL);
    } else if (target > max) {
      fleet.scaleIn(target - max, List.of(), ScaleMode.EDL);
    }
    return new ProfileRun(fleet, min, max, batches, samplesPerStep, nanos);
  }

  CompletableFuture<ProfileResult> result() {
    return result;
  }

  boolean isRunning() {
    return !result.isDone();
  }

  /** A progress report from the leader, after the fleet has seen it. */
  void onProgress(JobProgress p) {
    if (result.isDone()) {
      return;
    }
    if (fleet.status().phase() != WorkerFleet.Phase.RUNNING) {
      jobStopped();
      return;
    }
    if (fleet.isScaling() || fleet.status().targetWorkers() != size || p.getWorkers() != size) {
      return; // still on the way to this size
    }
    long now = nanos.getAsLong();
    if (startStep < 0) {
      startStep = p.getStep();
      startNanos = now;
      return;
    }
    long steps = p.getStep() - startStep;
    if (steps < batches || now <= startNanos) {
      return;
    }
    double seconds = (now - startNanos) / 1e9;
    points.add(new ProfilePoint(size, steps * samplesPerStep.applyAsLong(size) / seconds, (int) steps));
    startStep = -1;
    if (size == min) {
      ProfileResult r = new ProfileResult(List.copyOf(points));
      r.setSeconds((now - begun) / 1e9);
      result.complete(r);
      return;
    }
    size--;
    try {
      fleet.scaleIn(1, List.of(), ScaleMode.EDL);
    } catch (FleetRefusal e) {
      result.completeExceptionally(e);
    }
  }

  /** The job finished or failed before the last size was measured. */
  void jobStopped() {
    if (result.isDone()) {
      return;
    }
    WorkerFleet.Phase phase = fleet.status().phase();
    result.completeExceptionally(WorkerFleet.error("state", phase.name(), "the job stopped"
        + " running while profiling at " + size + " workers (measured " + points.size() + " of "
        + (max - min + 1) + " sizes)"));
  }
}
