package org.edl.worker.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.edl.worker.data.Dataset;
import org.junit.jupiter.api.Test;

/**
 * The batched gradients (what the cuda backend computes with cuBLAS) against the models' own
 * per-sample loops, on this CPU through {@link Gemm#HOST}: the same loss and gradient sums within
 * float rounding, for both built-in models, over several SGD steps. The cuBLAS half is
 * CudaBackendGpuTest's, where a GPU is.
 */
class BatchedModelTest {
  private static final Dataset DATA = dataset(96, 20, 5, 3);

  @Test
  void mlpGradientsMatchThePerSampleLoop() {
    trainSideBySide(new Mlp(20, 16, 5, 7), new Mlp(20, 16, 5, 7));
  }

  @Test
  void softmaxGradientsMatchThePerSampleLoop() {
    trainSideBySide(new SoftmaxRegression(20, 5, 7), new SoftmaxRegression(20, 5, 7));
  }

  private static void trainSideBySide(ClassifierModel loop, ClassifierModel twin) {
    BatchedModel batched = new BatchedModel(twin, Gemm.HOST);
    int[] order = new int[DATA.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = (i * 37) % order.length;
    }
    for (int step = 0; step < 5; step++) {
      int from = step * 16;
      float[] g1 = new float[loop.parameters().length];
      float[] g2 = new float[batched.parameters().length];
      double l1 = loop.accumulateGradients(DATA, order, from, from + 16, g1);
      double l2 = batched.accumulateGradients(DATA, order, from, from + 16, g2);
      assertEquals(l1, l2, 1e-4 * Math.max(1, Math.abs(l1)), "loss at step " + step);
      assertArrayEquals(g1, g2, 1e-4f, "gradient at step " + step);
      loop.applyGradients(g1, 0.1f / 16);
      batched.applyGradients(g2, 0.1f / 16);
    }
    assertArrayEquals(loop.parameters(), batched.parameters(), 1e-5f);
  }

  static Dataset dataset(int rows, int features, int classes, long seed) {
    Random r = new Random(seed);
    float[] x = new float[rows * features];
    int[] y = new int[rows];
    for (int i = 0; i < rows; i++) {
      y[i] = r.nextInt(classes);
      for (int j = 0; j < features; j++) {
        x[i * features + j] = (float) r.nextGaussian() + (j % classes == y[i] ? 1f : 0f);
      }
    }
    return new Dataset(x, y, features, classes);
  }
}
