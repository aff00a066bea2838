package org.edl.worker.data;

import java.util.Arrays;
import java.util.TreeSet;
import org.edl.job.InvalidInputException;

/**
 * Collects the raw labels of a file (any numbers: -1/+1, 1..K, 0..K-1) and maps their sorted
 * distinct values to {@code 0..K-1}. Sorting makes the mapping the same on every worker no matter
 * in which order rows arrive.
 */
final class LabelMapper {
  /** A file with more distinct labels than this is almost surely a regression target. */
  static final int MAX_CLASSES = 10_000;

  private final String source;
  private final TreeSet<Double> distinct = new TreeSet<>();

  LabelMapper(String source) {
    this.source = source;
  }

  /** Records one raw label; fails once there are too many to be classes. */
  void add(double label) {
    if (distinct.add(label) && distinct.size() > MAX_CLASSES) {
      throw new InvalidInputException("data", source, "more than " + MAX_CLASSES
          + " distinct labels; classification needs class labels, is this a regression target?");
    }
  }

  int classCount() {
    return distinct.size();
  }

  /** Maps every raw label to its rank among the distinct labels. */
  int[] map(double[] raw, int count) {
    double[] sorted = new double[distinct.size()];
    int i = 0;
    for (double d : distinct) {
      sorted[i++] = d;
    }
    int[] out = new int[count];
    for (int r = 0; r < count; r++) {
      out[r] = Arrays.binarySearch(sorted, raw[r]);
    }
    return out;
  }
}
