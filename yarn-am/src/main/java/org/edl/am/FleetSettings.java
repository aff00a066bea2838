package org.edl.am;

import java.util.function.Consumer;

/**
 * How a job's fleet is set up: its size bounds and container resources (from {@code edl submit}'s
 * flags) and the services it acts through. Fixed before the fleet exists, so nothing reconfigures a
 * fleet that runs; built with {@link #of} and its {@link Builder}.
 *
 * @param removal         asks the leader to remove workers at a future step (scale-in, migration)
 * @param stopper         stops every worker with a checkpoint (stop-resume mode)
 * @param checkpointRoot  directory under which each stop-resume change gets its own checkpoint
 * @param allowedFailures worker failures the job survives ({@code --max-worker-failures})
 * @param replaceRemoved  each worker the leader removed on its own gets a new container
 * @param growth          how the job asks YARN for workers by itself; null: it never does
 * @param journal         keeps the fleet's intent for a later AM attempt
 * @param restartSource   where a stop-resume's new workers start from
 * @param resumeFrom      the checkpoint the first workers start from; null: none
 * @param exits           told of each of the fleet's containers that exits, at once
 */
public record FleetSettings(WorkerResource resource, int targetWorkers, int minWorkers, int maxWorkers,
    WorkerRemoval removal, JobStopper stopper, String checkpointRoot, int allowedFailures, boolean replaceRemoved,
    GrowthPolicy growth, FleetJournal journal, RestartSource restartSource, String resumeFrom,
    Consumer<String> exits) {

  public FleetSettings {
    if (targetWorkers < 1) {
      throw new IllegalArgumentException("targetWorkers must be at least 1: " + targetWorkers);
    }
    if (minWorkers < 1 || minWorkers > targetWorkers || maxWorkers < targetWorkers) {
      throw new IllegalArgumentException("need 1 <= min <= target <= max: min " + minWorkers
          + ", target " + targetWorkers + ", max " + maxWorkers);
    }
    if (allowedFailures < 0) {
      throw new IllegalArgumentException("allowedFailures must not be negative: " + allowedFailures);
    }
    resumeFrom = resumeFrom == null || resumeFrom.isBlank() ? null : resumeFrom;
  }

  /** A fleet of {@code target} workers that may change between {@code min} and {@code max}. */
  public static Builder of(WorkerResource resource, int target, int min, int max) {
    return new Builder(resource, target, min, max);
  }

  /**
   * What a fleet starts from unless told otherwise: no removal or stop (scale calls are refused),
   * no failure survived, no growth, no journal.
   */
  public static final class Builder {
    private final WorkerResource resource;
    private final int target;
    private final int min;
    private final int max;
    private WorkerRemoval removal = WorkerRemoval.UNSUPPORTED;
    private JobStopper stopper = JobStopper.UNSUPPORTED;
    private String checkpointRoot;
    private int allowedFailures;
    private boolean replaceRemoved;
    private GrowthPolicy growth;
    private FleetJournal journal = FleetJournal.NONE;
    private RestartSource restartSource = RestartSource.STOP_DIRECTORY;
    private String resumeFrom;
    private Consumer<String> exits = id -> { };

    private Builder(WorkerResource resource, int target, int min, int max) {
      this.resource = resource;
      this.target = target;
      this.min = min;
      this.max = max;
    }

    public Builder removingBy(WorkerRemoval by) {
      this.removal = by;
      return this;
    }

    /** Stop-resume changes: every worker stops with a checkpoint under {@code root}, then all restart. */
    public Builder stoppingBy(JobStopper by, String root) {
      this.stopper = by;
      this.checkpointRoot = root;
      return this;
    }

    /**
     * The job survives {@code allowed} worker failures: each is logged, shown in the status, and (by
     * {@link ExitRules}) replaced by one new container with the same resources that joins by
     * ordinary stop-free scale-out; the target stays. With none, the first failure fails the job.
     */
    public Builder toleratingWorkerFailures(int allowed) {
      this.allowedFailures = allowed;
      return this;
    }

    public Builder replaceRemovedWorkers(boolean replace) {
      this.replaceRemoved = replace;
      return this;
    }

    /**
     * The job asks YARN for workers by itself when {@code policy} says so: the rest of its first
     * request once it trains at its minimum, and elastic extras up to max-workers. Each one granted
     * joins by a stop-free scale-out of one. A job with a policy also counts as RUNNING from the
     * leader's first report of a ring of at least min-workers; the requests still outstanding then
     * are withdrawn and asked for again one at a time.
     */
    public Builder growing(GrowthPolicy policy) {
      this.growth = policy;
      return this;
    }

    /** Keeps the fleet's intent there for a later AM attempt ({@link WorkerFleet#adopt}). */
    public Builder journaling(FleetJournal to) {
      this.journal = to;
      return this;
    }

    public Builder restartingFrom(RestartSource source) {
      this.restartSource = source;
      return this;
    }

    /**
     * Each container launched before every first worker started gets {@code checkpoint} as
     * {@link org.edl.job.WorkerEnv#RESTORE_FROM}; later ones join the running job and are handed
     * the model by the ring, as usual. Null or blank: the job starts fresh.
     */
    public Builder startingFrom(String checkpoint) {
      this.resumeFrom = checkpoint;
      return this;
    }

    /**
     * Each of the fleet's containers that exits (or could not be started) is reported to {@code to},
     * which tells the job's members at once ({@link ExitEvidence}); without it they learn of a dead
     * worker only from their own timeouts and its ZooKeeper session's expiry.
     */
    public Builder reportingExitsTo(Consumer<String> to) {
      this.exits = to;
      return this;
    }

    public FleetSettings build() {
      return new FleetSettings(resource, target, min, max, removal, stopper, checkpointRoot, allowedFailures,
          replaceRemoved, growth, journal, restartSource, resumeFrom, exits);
    }
  }
}
