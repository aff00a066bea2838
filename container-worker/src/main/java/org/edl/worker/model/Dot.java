package org.edl.worker.model;

/** The dot product the forward passes spend their time in. */
final class Dot {
  private Dot() {}

  /**
   * {@code sum a[aOff+i] * b[bOff+i]} in double. Four independent accumulators let the CPU
   * overlap the additions instead of waiting on one long dependency chain (the JIT will not
   * reorder a floating-point reduction itself); the fixed order keeps results reproducible.
   */
  static double dot(float[] a, int aOff, float[] b, int bOff, int n) {
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int i = 0;
    for (; i + 3 < n; i += 4) {
      s0 += a[aOff + i] * b[bOff + i];
      s1 += a[aOff + i + 1] * b[bOff + i + 1];
      s2 += a[aOff + i + 2] * b[bOff + i + 2];
      s3 += a[aOff + i + 3] * b[bOff + i + 3];
    }
    for (; i < n; i++) {
      s0 += a[aOff + i] * b[bOff + i];
    }
    return (s0 + s1) + (s2 + s3);
  }
}
