package org.edl.worker.data;

/**
 * The samples one member trains at the step being trained and the steps after it, if its ring
 * stays as it is: what a script's DataLoader prefetches. The step's own samples are the ones it
 * was given (a switch's first step is sliced by the joiners' weights); later ones are the even
 * slices of the following global batches. Read on another thread than the training loop's, so
 * {@code order} is one the loop itself does not use, and every read holds its lock.
 *
 * @param step        the step being trained
 * @param current     its samples
 * @param batchStart  its global batch's first position
 * @param endStep     the job's end: no step at or past it is planned
 */
public record UpcomingBatches(long step, int[] current, long batchStart, int globalBatch, int rank, int workers,
    long endStep, EpochOrder order) {

  /** The samples of {@code count} steps from {@code from} (fewer past the end). */
  public int[][] samples(long from, int count) {
    if (from < step || count < 0) {
      throw new IllegalArgumentException("steps " + from + " (" + count + ") before the step being trained, " + step);
    }
    int n = (int) Math.max(0, Math.min(count, endStep - from));
    int[][] out = new int[n][];
    for (int i = 0; i < n; i++) {
      long s = from + i;
      if (s == step) {
        out[i] = current.clone();
      } else {
        BatchSlicer.Range r = BatchSlicer.slice(batchStart + (s - step) * globalBatch, globalBatch, rank, workers);
        synchronized (order) {
          out[i] = order.samples(r);
        }
      }
    }
    return out;
  }
}
