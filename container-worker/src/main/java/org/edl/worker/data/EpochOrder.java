package org.edl.worker.data;

import java.util.Random;

/**
 * The order in which an epoch visits the samples: a permutation of {@code 0..size-1} that depends
 * only on (seed, epoch), so every worker computes the same one without being told it.
 *
 * <p>Positions are counted across epochs: global position {@code p} is index {@code p % size} of
 * epoch {@code p / size}'s order. A batch that runs past the end of an epoch simply continues in
 * the next one, so no sample is skipped or repeated within an epoch.
 *
 * <p>Not thread-safe: it caches the last two epochs' orders (a batch spans at most two when the
 * batch is no larger than the data set).
 */
public final class EpochOrder {
  private final int size;
  private final long seed;
  private final long[] cachedEpoch = {-1, -1};
  private final int[][] cachedOrder = new int[2][];
  private int nextSlot;

  public EpochOrder(int size, long seed) {
    if (size < 1) {
      throw new IllegalArgumentException("size must be positive: " + size);
    }
    this.size = size;
    this.seed = seed;
  }

  public int size() {
    return size;
  }

  /** A fresh copy of epoch {@code epoch}'s permutation. */
  public int[] order(long epoch) {
    return orderOf(epoch).clone();
  }

  /** The sample at global position {@code position}. */
  public int sampleAt(long position) {
    return orderOf(position / size)[(int) (position % size)];
  }

  /**
   * The samples at global positions {@code [from, to)}, crossing epoch boundaries as needed.
   * The result can be handed to {@code TrainableModel.accumulateGradients(data, s, 0, s.length, g)}.
   */
  public int[] samples(long from, long to) {
    if (from < 0 || to < from || to - from > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("bad range [" + from + ", " + to + ")");
    }
    int[] out = new int[(int) (to - from)];
    int filled = 0;
    long p = from;
    while (p < to) {
      long epoch = p / size;
      int offset = (int) (p % size);
      int n = (int) Math.min(to - p, size - offset);
      System.arraycopy(orderOf(epoch), offset, out, filled, n);
      filled += n;
      p += n;
    }
    return out;
  }

  /** Samples for a {@link BatchSlicer.Range}. */
  public int[] samples(BatchSlicer.Range range) {
    return samples(range.from(), range.to());
  }

  /** Fisher-Yates over a generator seeded from (seed, epoch); java.util.Random is specified exactly. */
  static int[] permutation(int size, long seed, long epoch) {
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Random random = new Random(mix(seed, epoch));
    for (int i = size - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }

  /** SplitMix64's finaliser, so that neighbouring (seed, epoch) pairs give unrelated streams. */
  static long mix(long seed, long epoch) {
    long z = seed * 0x9E3779B97F4A7C15L + epoch + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private int[] orderOf(long epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException("negative epoch " + epoch);
    }
    for (int s = 0; s < 2; s++) {
      if (cachedEpoch[s] == epoch) {
        return cachedOrder[s];
      }
    }
    int slot = nextSlot;
    nextSlot = 1 - nextSlot;
    cachedOrder[slot] = permutation(size, seed, epoch);
    cachedEpoch[slot] = epoch;
    return cachedOrder[slot];
  }
}
