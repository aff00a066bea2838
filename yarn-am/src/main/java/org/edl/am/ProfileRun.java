package org.edl.am;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.edl.thrift.JobProgress;
import org.edl.thrift.ProfilePoint;

/**
 * The decisions of {@code profile(min, max, batches)}: bring the job to {@code max} workers, then
 * at each size from {@code max} down to {@code min} measure the throughput over {@code batches}
 * steps and scale in by one; at the end go back to the size the job had before. It only reads
 * the leader's progress reports and tells a {@link Scaler} the size it wants, so it is the same
 * code whatever carries the scaling out.
 *
 * <p>A size's window starts at the first report that shows the new ring, so the switch itself is
 * not in the measurement; the rate is samples over the leader's own clock between two reports.
 * Main thread only, like the fleet.
 */
public final class ProfileRun {
  /** Changes the job's size; the fleet behind it validates and schedules. */
  public interface Scaler {
    void scaleTo(int workers) throws Exception;
  }

  private final int min;
  private final int max;
  private final int batches;
  private final Scaler scaler;
  private final List<ProfilePoint> points = new ArrayList<>();
  private final CompletableFuture<List<ProfilePoint>> result = new CompletableFuture<>();
  private int restoreTo;
  private int expected;
  private JobProgress windowStart;

  public ProfileRun(int min, int max, int batches, Scaler scaler) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException("profile range " + min + ".." + max + " is empty");
    }
    if (batches < 1) {
      throw new IllegalArgumentException("batches must be at least 1: " + batches);
    }
    this.min = min;
    this.max = max;
    this.batches = batches;
    this.scaler = scaler;
  }

  /** Starts from a job of {@code currentWorkers}; it returns to that size when done. */
  public void start(int currentWorkers) {
    restoreTo = currentWorkers;
    expected = max;
    if (currentWorkers != max) {
      scale(max);
    }
  }

  /** The points from max down to min, or the reason the run stopped. */
  public CompletableFuture<List<ProfilePoint>> result() {
    return result;
  }

  public boolean isDone() {
    return result.isDone();
  }

  public void onProgress(JobProgress p) {
    if (isDone() || p.getWorkers() != expected || !p.isSetSamplesSeen() || !p.isSetLeaderSeconds()) {
      return;
    }
    if (windowStart == null) {
      windowStart = p;
      return;
    }
    long steps = p.getStep() - windowStart.getStep();
    if (steps < batches) {
      return;
    }
    double seconds = p.getLeaderSeconds() - windowStart.getLeaderSeconds();
    double rate = seconds > 0 ? (p.getSamplesSeen() - windowStart.getSamplesSeen()) / seconds : 0;
    points.add(new ProfilePoint(expected, rate, (int) steps));
    windowStart = null;
    if (expected == min) {
      if (restoreTo != min) {
        scale(restoreTo);
      }
      result.complete(List.copyOf(points));
      return;
    }
    expected--;
    scale(expected);
  }

  /** The job ended or failed while profiling. */
  public void abort(String why) {
    result.completeExceptionally(new IllegalStateException("profiling stopped: " + why));
  }

  private void scale(int workers) {
    try {
      scaler.scaleTo(workers);
    } catch (Exception e) {
      result.completeExceptionally(e);
    }
  }
}
