package org.edl.scheduler.core.policy;

/**
 * A cluster-wide GPU policy over plain jobs, driven by a clock the caller passes in. The caller
 * reports arrivals and completions, asks {@link #schedule} for decisions after each batch of
 * events at one instant, and calls {@link #review} at the time {@link #nextReview} named (a
 * 2D-LAS queue crossing, a starvation deadline) when nothing else happened before it.
 */
public interface ClusterPolicy {
  String name();

  void arrived(PolicyJob job, double now);

  /** The job is done; the caller has already taken its GPUs back. */
  void finished(PolicyJob job, double now);

  /**
   * Decides which jobs hold how many GPUs from {@code now} on; calls {@code out.set} only for jobs
   * whose count changes. The caller applies all of them before the next call.
   */
  void schedule(double now, Allocations out);

  /** After the job's allocation changed: when to look at it again, or +infinity. */
  default double nextReview(PolicyJob job, double now) {
    return Double.POSITIVE_INFINITY;
  }

  default void review(PolicyJob job, double now) {}

  /** The fewest GPUs the job may run on under this policy. */
  default int minGpus(PolicyJob job) {
    return job.requestedGpus();
  }

  /** The most GPUs the job may run on under this policy. */
  default int maxGpus(PolicyJob job) {
    return job.requestedGpus();
  }
}
