package org.edl.worker.model;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Random;
import org.edl.worker.data.Dataset;

/**
 * Multinomial logistic regression: {@code p = softmax(W x + b)}, cross-entropy loss.
 *
 * <p>Layout of {@link #parameters()}: {@code W} row-major ({@code classes x features}), then
 * {@code b} ({@code classes}). {@link #accumulateGradients} keeps no state between calls, so one
 * instance may serve several threads that write to different gradient arrays.
 */
public final class SoftmaxRegression implements ClassifierModel {
  public static final String NAME = "softmax";
  private static final String[] DIMS = {"features", "classes"};
  /** Small weights: a linear model needs no symmetry breaking, only a seed-defined start. */
  static final double INIT_STDDEV = 0.01;

  private final int features;
  private final int classes;
  private final int biasOffset;
  private final float[] params;

  public SoftmaxRegression(int features, int classes, long seed) {
    if (features < 1 || classes < 1) {
      throw new IllegalArgumentException("features and classes must be positive");
    }
    this.features = features;
    this.classes = classes;
    this.biasOffset = Init.checkedSize((long) features * classes, NAME);
    this.params = new float[Init.checkedSize((long) biasOffset + classes, NAME)];
    Init.gaussian(new Random(seed), params, 0, biasOffset, INIT_STDDEV);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public float[] parameters() {
    return params;
  }

  @Override
  public int featureCount() {
    return features;
  }

  @Override
  public int classCount() {
    return classes;
  }

  @Override
  public double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum) {
    checkShape(data);
    float[] x = data.features();
    int[] labels = data.labels();
    double[] logits = new double[classes];
    double loss = 0;
    for (int s = from; s < to; s++) {
      int row = samples[s];
      int xBase = row * features;
      logits(x, xBase, logits);
      loss += SoftmaxLoss.lossAndGradient(logits, classes, labels[row]);
      for (int k = 0; k < classes; k++) {
        float g = (float) logits[k];
        int wBase = k * features;
        for (int j = 0; j < features; j++) {
          gradSum[wBase + j] += g * x[xBase + j];
        }
        gradSum[biasOffset + k] += g;
      }
    }
    return loss;
  }

  @Override
  public int predict(Dataset data, int row) {
    checkShape(data);
    double[] logits = new double[classes];
    logits(data.features(), row * features, logits);
    return SoftmaxLoss.argmax(logits, classes);
  }

  private void logits(float[] x, int xBase, double[] out) {
    for (int k = 0; k < classes; k++) {
      int wBase = k * features;
      double z = params[biasOffset + k];
      for (int j = 0; j < features; j++) {
        z += params[wBase + j] * x[xBase + j];
      }
      out[k] = z;
    }
  }

  private void checkShape(Dataset data) {
    if (data.featureCount() != features || data.classCount() > classes) {
      throw new IllegalArgumentException("data set has " + data.featureCount() + " features and "
          + data.classCount() + " classes; model " + describe() + " does not fit it");
    }
  }

  public String describe() {
    return ModelState.describe(NAME, DIMS, new int[] {features, classes});
  }

  @Override
  public void writeState(DataOutputStream out) throws IOException {
    ModelState.write(out, NAME, DIMS, new int[] {features, classes}, params);
  }

  @Override
  public void readState(DataInputStream in) throws IOException {
    ModelState.read(in, NAME, DIMS, new int[] {features, classes}, params);
  }
}
