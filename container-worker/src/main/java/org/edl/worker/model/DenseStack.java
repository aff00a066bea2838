package org.edl.worker.model;

import java.util.List;
import org.edl.worker.data.Dataset;

/**
 * The built-in models' gradients a batch at a time, as matrix products a {@link Gemm} computes
 * (cuBLAS on a GPU): dense layers with ReLU between them and softmax cross-entropy at the end.
 * {@code softmax} is one layer, {@code mlp} two. The sums are those of the models' per-sample
 * loops, in float products instead of double dot products.
 */
final class DenseStack {
  /** One layer: {@code out x in} weights row-major at {@code weights}, {@code out} biases at {@code biases}. */
  record Layer(int in, int out, int weights, int biases) {}

  private final List<Layer> layers;
  private final Gemm gemm;

  DenseStack(List<Layer> layers, Gemm gemm) {
    this.layers = List.copyOf(layers);
    this.gemm = gemm;
  }

  /** The layers of a built-in model, by its documented parameter layout. */
  static List<Layer> layersOf(ClassifierModel model) {
    int f = model.featureCount();
    int c = model.classCount();
    if (model instanceof Mlp mlp) {
      int h = mlp.hiddenCount();
      return List.of(new Layer(f, h, 0, h * f), new Layer(h, c, h * f + h, h * f + h + c * h));
    }
    if (model instanceof SoftmaxRegression) {
      return List.of(new Layer(f, c, 0, f * c));
    }
    throw new IllegalArgumentException("no dense layout for model " + model.name());
  }

  /** As {@link TrainableModel#accumulateGradients}: adds the batch's gradient sums, returns its loss sum. */
  double accumulate(float[] params, Dataset data, int[] samples, int from, int to, float[] gradSum) {
    int batch = to - from;
    if (batch <= 0) {
      return 0;
    }
    int features = layers.get(0).in();
    float[] x = data.features();
    float[] input = new float[batch * features];
    for (int s = 0; s < batch; s++) {
      System.arraycopy(x, samples[from + s] * features, input, s * features, features);
    }
    float[][] activations = new float[layers.size() + 1][];
    activations[0] = input;
    for (int l = 0; l < layers.size(); l++) {
      Layer layer = layers.get(l);
      float[] z = gemm.multiply(false, true, batch, layer.out(), layer.in(), activations[l],
          slice(params, layer.weights(), layer.out() * layer.in()));
      boolean hidden = l < layers.size() - 1;
      for (int s = 0; s < batch; s++) {
        for (int j = 0; j < layer.out(); j++) {
          float v = z[s * layer.out() + j] + params[layer.biases() + j];
          z[s * layer.out() + j] = hidden && v <= 0f ? 0f : v;
        }
      }
      activations[l + 1] = z;
    }

    int classes = layers.get(layers.size() - 1).out();
    float[] grad = activations[layers.size()];
    double[] logits = new double[classes];
    int[] labels = data.labels();
    double loss = 0;
    for (int s = 0; s < batch; s++) {
      for (int k = 0; k < classes; k++) {
        logits[k] = grad[s * classes + k];
      }
      loss += SoftmaxLoss.lossAndGradient(logits, classes, labels[samples[from + s]]);
      for (int k = 0; k < classes; k++) {
        grad[s * classes + k] = (float) logits[k];
      }
    }

    for (int l = layers.size() - 1; l >= 0; l--) {
      Layer layer = layers.get(l);
      float[] dw = gemm.multiply(true, false, layer.out(), layer.in(), batch, grad, activations[l]);
      for (int i = 0; i < dw.length; i++) {
        gradSum[layer.weights() + i] += dw[i];
      }
      for (int s = 0; s < batch; s++) {
        for (int j = 0; j < layer.out(); j++) {
          gradSum[layer.biases() + j] += grad[s * layer.out() + j];
        }
      }
      if (l > 0) {
        float[] below = gemm.multiply(false, false, batch, layer.in(), layer.out(), grad,
            slice(params, layer.weights(), layer.out() * layer.in()));
        float[] active = activations[l];
        for (int i = 0; i < below.length; i++) {
          if (active[i] <= 0f) {
            below[i] = 0f; // ReLU passes the gradient only where it was active
          }
        }
        grad = below;
      }
    }
    return loss;
  }

  private static float[] slice(float[] params, int from, int length) {
    return java.util.Arrays.copyOfRange(params, from, from + length);
  }
}
