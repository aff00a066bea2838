package org.edl.worker.model;

import java.util.Random;

/**
 * Deterministic parameter initialisation: the same seed gives bit-identical parameters on every
 * worker and JVM (java.util.Random's sequence, nextGaussian included, is specified exactly), so
 * workers start in agreement without a broadcast.
 */
final class Init {
  private Init() {}

  /** Fills {@code params[from, from+count)} with N(0, stddev^2). */
  static void gaussian(Random random, float[] params, int from, int count, double stddev) {
    for (int i = from; i < from + count; i++) {
      params[i] = (float) (random.nextGaussian() * stddev);
    }
  }

  static int checkedSize(long size, String what) {
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(what + " needs " + size + " parameters, more than one array holds");
    }
    return (int) size;
  }
}
