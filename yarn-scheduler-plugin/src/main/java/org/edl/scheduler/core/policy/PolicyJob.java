package org.edl.scheduler.core.policy;

/**
 * What a cluster policy sees of one job. Times are on the caller's clock (seconds; the simulator's
 * simulated clock, the ResourceManager's own), never read from the wall here.
 */
public interface PolicyJob {
  long id();

  /** The tenant: the user's queue on YARN, Philly's virtual cluster in the simulator. */
  String user();

  int requestedGpus();

  double submitTime();

  /** GPUs the job holds now (0 while it waits). */
  int gpus();

  /** GPUs x seconds held so far, up to {@code now}. */
  double attainedGpuSeconds(double now);

  /** Seconds the job has run (held any GPU) so far, up to {@code now}. */
  double executedSeconds(double now);

  /** When the job last stopped running, or its submit time if it never ran. */
  double lastStoppedAt();

  /** Throughput at {@code gpus} GPUs over throughput at one GPU. */
  double speedup(int gpus);

  /**
   * Whether the job can run at another size than it requested. An elastic policy neither
   * shrinks a job that cannot (its minimum is its request) nor grows it (its maximum is too), so
   * it never counts on GPUs such a job will not give back or take. Every trace job can.
   */
  default boolean elastic() {
    return true;
  }

  /**
   * GPUs the job is guaranteed whatever the policy decides (the ResourceManager never takes an
   * EDL job below its {@code edl-min-gpus} tag): an elastic policy plans it no lower. 0: none
   * beyond the policy's own floor; every trace job.
   */
  default int guaranteedGpus() {
    return 0;
  }
}
