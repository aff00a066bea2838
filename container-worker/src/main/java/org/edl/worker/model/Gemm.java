package org.edl.worker.model;

/**
 * General matrix multiply on row-major matrices, the one operation {@link DenseStack} leaves to a
 * device: {@code C = op(A) op(B)} with {@code op(A)} {@code m x k}, {@code op(B)} {@code k x n}.
 */
public interface Gemm {
  /**
   * @param transA whether {@code a} holds {@code A} transposed ({@code k x m} row-major)
   * @param transB whether {@code b} holds {@code B} transposed ({@code n x k} row-major)
   * @return {@code C}, {@code m x n} row-major
   */
  float[] multiply(boolean transA, boolean transB, int m, int n, int k, float[] a, float[] b);

  /** On this CPU, summing in double as the built-in models' own loops do. */
  Gemm HOST = (transA, transB, m, n, k, a, b) -> {
    float[] c = new float[m * n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double sum = 0;
        for (int p = 0; p < k; p++) {
          sum += (double) a[transA ? p * m + i : i * k + p] * b[transB ? j * k + p : p * n + j];
        }
        c[i * n + j] = (float) sum;
      }
    }
    return c;
  };
}
