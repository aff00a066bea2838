package org.edl.worker.model;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.edl.worker.data.Dataset;

/**
 * A two-layer perceptron: {@code h = relu(W1 x + b1)}, {@code p = softmax(W2 h + b2)},
 * cross-entropy loss.
 *
 * <p>Layout of {@link #parameters()}: {@code W1} ({@code hidden x features}, row-major),
 * {@code b1} ({@code hidden}), {@code W2} ({@code classes x hidden}), {@code b2}
 * ({@code classes}). Inner loops run over contiguous memory. {@link #accumulateGradients} keeps
 * no state between calls.
 */
public final class Mlp implements ClassifierModel {
  public static final String NAME = "mlp";
  private static final String[] DIMS = {"features", "hidden", "classes"};

  private final int features;
  private final int hidden;
  private final int classes;
  private final int b1;
  private final int w2;
  private final int b2;
  private final float[] params;

  public Mlp(int features, int hidden, int classes, long seed) {
    if (features < 1 || hidden < 1 || classes < 1) {
      throw new IllegalArgumentException("features, hidden and classes must be positive");
    }
    this.features = features;
    this.hidden = hidden;
    this.classes = classes;
    this.b1 = Init.checkedSize((long) hidden * features, NAME);
    this.w2 = Init.checkedSize((long) b1 + hidden, NAME);
    this.b2 = Init.checkedSize((long) w2 + (long) classes * hidden, NAME);
    this.params = new float[Init.checkedSize((long) b2 + classes, NAME)];
    Random random = new Random(seed);
    // He initialisation for the ReLU layer, Glorot-style for the softmax layer; biases zero.
    Init.gaussian(random, params, 0, b1, Math.sqrt(2.0 / features));
    Init.gaussian(random, params, w2, b2 - w2, Math.sqrt(1.0 / hidden));
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

  public int hiddenCount() {
    return hidden;
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
    float[] h = new float[hidden];
    float[] dh = new float[hidden];
    double[] logits = new double[classes];
    double loss = 0;
    for (int s = from; s < to; s++) {
      int row = samples[s];
      int xBase = row * features;
      forward(x, xBase, h, logits);
      loss += SoftmaxLoss.lossAndGradient(logits, classes, labels[row]);

      Arrays.fill(dh, 0f);
      for (int k = 0; k < classes; k++) {
        float g = (float) logits[k];
        int wBase = w2 + k * hidden;
        for (int j = 0; j < hidden; j++) {
          gradSum[wBase + j] += g * h[j];
          dh[j] += g * params[wBase + j];
        }
        gradSum[b2 + k] += g;
      }
      for (int j = 0; j < hidden; j++) {
        // ReLU passes the gradient only where it was active.
        if (h[j] <= 0f) {
          continue;
        }
        float g = dh[j];
        int wBase = j * features;
        for (int i = 0; i < features; i++) {
          gradSum[wBase + i] += g * x[xBase + i];
        }
        gradSum[b1 + j] += g;
      }
    }
    return loss;
  }

  @Override
  public int predict(Dataset data, int row) {
    checkShape(data);
    double[] logits = new double[classes];
    forward(data.features(), row * features, new float[hidden], logits);
    return SoftmaxLoss.argmax(logits, classes);
  }

  private void forward(float[] x, int xBase, float[] h, double[] logits) {
    for (int j = 0; j < hidden; j++) {
      int wBase = j * features;
      double z = params[b1 + j];
      for (int i = 0; i < features; i++) {
        z += params[wBase + i] * x[xBase + i];
      }
      h[j] = z > 0 ? (float) z : 0f;
    }
    for (int k = 0; k < classes; k++) {
      int wBase = w2 + k * hidden;
      double z = params[b2 + k];
      for (int j = 0; j < hidden; j++) {
        z += params[wBase + j] * h[j];
      }
      logits[k] = z;
    }
  }

  private void checkShape(Dataset data) {
    if (data.featureCount() != features || data.classCount() > classes) {
      throw new IllegalArgumentException("data set has " + data.featureCount() + " features and "
          + data.classCount() + " classes; model " + describe() + " does not fit it");
    }
  }

  public String describe() {
    return ModelState.describe(NAME, DIMS, new int[] {features, hidden, classes});
  }

  @Override
  public void writeState(DataOutputStream out) throws IOException {
    ModelState.write(out, NAME, DIMS, new int[] {features, hidden, classes}, params);
  }

  @Override
  public void readState(DataInputStream in) throws IOException {
    ModelState.read(in, NAME, DIMS, new int[] {features, hidden, classes}, params);
  }
}
