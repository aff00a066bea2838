package org.edl.worker.model;

/** Softmax with cross-entropy, in double, shared by both built-in models. */
final class SoftmaxLoss {
  private SoftmaxLoss() {}

  /**
   * Turns {@code logits} in place into {@code d loss / d logits} ({@code p - onehot(label)}) and
   * returns the loss {@code -log p[label]}. The maximum is subtracted first so that large logits
   * do not overflow {@code exp}.
   */
  static double lossAndGradient(double[] logits, int classes, int label) {
    double max = logits[0];
    for (int k = 1; k < classes; k++) {
      max = Math.max(max, logits[k]);
    }
    double shiftedLabelLogit = logits[label] - max;
    double sum = 0;
    for (int k = 0; k < classes; k++) {
      double e = Math.exp(logits[k] - max);
      logits[k] = e;
      sum += e;
    }
    double loss = Math.log(sum) - shiftedLabelLogit;
    double inv = 1.0 / sum;
    for (int k = 0; k < classes; k++) {
      logits[k] *= inv;
    }
    logits[label] -= 1.0;
    return loss;
  }

  static int argmax(double[] values, int n) {
    int best = 0;
    for (int k = 1; k < n; k++) {
      if (values[k] > values[best]) {
        best = k;
      }
    }
    return best;
  }
}
