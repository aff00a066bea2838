package org.edl.worker.data;

/**
 * Which part of a global batch a worker computes. Pure functions: the same (batch start, global
 * batch, rank, workers) gives every worker the same answer, and the parts of all ranks are
 * contiguous, disjoint and cover the batch exactly once. When the batch does not divide evenly
 * the first {@code batch % workers} ranks take one sample more.
 *
 * <p>Positions are global sample positions as {@link EpochOrder} counts them (they run on across
 * epochs), so a batch may wrap into the next epoch.
 */
public final class BatchSlicer {

  /** Global sample positions {@code [from, to)}. */
  public record Range(long from, long to) {
    public int length() {
      return (int) (to - from);
    }
  }

  private BatchSlicer() {}

  /**
   * Rank {@code rank}'s part of the batch that starts at global position {@code batchStart}.
   * The start is passed in rather than derived from the step because the global batch may change
   * while a job runs (a per-worker batch rule after a scale-out); the leader tracks it.
   */
  public static Range slice(long batchStart, int globalBatch, int rank, int workers) {
    if (batchStart < 0) {
      throw new IllegalArgumentException("negative batch start " + batchStart);
    }
    if (workers < 1 || rank < 0 || rank >= workers) {
      throw new IllegalArgumentException("rank " + rank + " of " + workers + " workers");
    }
    if (globalBatch < 0) {
      throw new IllegalArgumentException("negative global batch " + globalBatch);
    }
    int base = globalBatch / workers;
    int extra = globalBatch % workers;
    long from = batchStart + (long) rank * base + Math.min(rank, extra);
    long to = from + base + (rank < extra ? 1 : 0);
    return new Range(from, to);
  }

  /**
   * Rank {@code rank}'s part when the ranks take parts in proportion to {@code weights} (integers,
   * so that every member computes the same boundaries): contiguous in rank order, disjoint, and
   * covering the batch exactly once.
   */
  public static Range slice(long batchStart, int globalBatch, int rank, long[] weights) {
    if (batchStart < 0) {
      throw new IllegalArgumentException("negative batch start " + batchStart);
    }
    if (rank < 0 || rank >= weights.length) {
      throw new IllegalArgumentException("rank " + rank + " of " + weights.length + " workers");
    }
    if (globalBatch < 0) {
      throw new IllegalArgumentException("negative global batch " + globalBatch);
    }
    long total = 0;
    long before = 0;
    for (int r = 0; r < weights.length; r++) {
      if (weights[r] < 1) {
        throw new IllegalArgumentException("weight " + weights[r] + " of rank " + r + ": must be positive");
      }
      total += weights[r];
      if (r < rank) {
        before += weights[r];
      }
    }
    long from = batchStart + globalBatch * before / total;
    long to = batchStart + globalBatch * (before + weights[rank]) / total;
    return new Range(from, to);
  }

  /** {@link #slice} for a job whose global batch never changed: step {@code t} starts at {@code t * B}. */
  public static Range sliceForStep(long step, int globalBatch, int rank, int workers) {
    if (step < 0) {
      throw new IllegalArgumentException("negative step " + step);
    }
    return slice(Math.multiplyExact(step, (long) globalBatch), globalBatch, rank, workers);
  }
}
