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
 * @param part        which of {@code parts} contiguous parts of each batch is wanted (a worker's
 *                    several script processes each train one)
 */
public record UpcomingBatches(long step, int[] current, long batchStart, int globalBatch, int rank, int workers,
    long endStep, EpochOrder order, int part, int parts) {

  /** The whole of each batch. */
  public UpcomingBatches(long step, int[] current, long batchStart, int globalBatch, int rank, int workers,
      long endStep, EpochOrder order) {
    this(step, current, batchStart, globalBatch, rank, workers, endStep, order, 0, 1);
  }

  /** Part {@code index} of {@code of} of each batch, as {@link #part(int[], int, int)} cuts it. */
  public UpcomingBatches part(int index, int of) {
    return new UpcomingBatches(step, current, batchStart, globalBatch, rank, workers, endStep, order, index, of);
  }

  /** Part {@code index} of {@code of} contiguous parts of {@code samples} (they differ in length by at most one). */
  public static int[] part(int[] samples, int index, int of) {
    int from = (int) ((long) samples.length * index / of);
    int to = (int) ((long) samples.length * (index + 1) / of);
    return java.util.Arrays.copyOfRange(samples, from, to);
  }

  /** The samples of {@code count} steps from {@code from} (fewer past the end). */
  public int[][] samples(long from, int count) {
    if (from < step || count < 0) {
      throw new IllegalArgumentException("steps " + from + " (" + count + ") before the step being trained, " + step);
    }
    int n = (int) Math.max(0, Math.min(count, endStep - from));
    int[][] out = new int[n][];
    for (int i = 0; i < n; i++) {
      long s = from + i;
      int[] whole;
      if (s == step) {
        whole = current;
      } else {
        BatchSlicer.Range r = BatchSlicer.slice(batchStart + (s - step) * globalBatch, globalBatch, rank, workers);
        synchronized (order) {
          whole = order.samples(r);
        }
      }
      out[i] = part(whole, part, parts);
    }
    return out;
  }
}
