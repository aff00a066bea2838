package org.edl.job;

/**
 * How many workers a job runs with.
 *
 * @param workers    workers to start with
 * @param minWorkers the job never runs with fewer
 * @param maxWorkers the job never runs with more
 * @param gatherMs   once min-workers have registered, the leader waits this long for the rest of
 *                   the first ring, then starts with those registered (the others join stop-free
 *                   as YARN grants them); negative: wait for all {@code workers}
 */
public record Scale(int workers, int minWorkers, int maxWorkers, long gatherMs) {
  /** Jobs built in code wait for their whole first ring, as tests of exact switches need. */
  public static final long WAIT_FOR_ALL = -1;
  /** What {@code edl submit} uses without {@code --gather-ms}. */
  public static final long DEFAULT_GATHER_MS = 5_000;

  public Scale(int workers, int minWorkers, int maxWorkers) {
    this(workers, minWorkers, maxWorkers, WAIT_FOR_ALL);
  }

  /** Whether the first ring may form with fewer than {@code workers}. */
  public boolean startsAtMinimum() {
    return gatherMs >= 0 && minWorkers < workers;
  }
}
