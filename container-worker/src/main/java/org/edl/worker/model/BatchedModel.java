package org.edl.worker.model;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.edl.worker.data.Dataset;

/**
 * A built-in model whose gradients are computed a batch at a time through a {@link Gemm} (the
 * cuda backend's cuBLAS); parameters, state and prediction are the wrapped model's own, so
 * checkpoints and broadcasts are the same as on the cpu backend.
 */
public final class BatchedModel implements ClassifierModel {
  private final ClassifierModel model;
  private final DenseStack stack;

  public BatchedModel(ClassifierModel model, Gemm gemm) {
    this.model = model;
    this.stack = new DenseStack(DenseStack.layersOf(model), gemm);
  }

  @Override
  public String name() {
    return model.name();
  }

  @Override
  public float[] parameters() {
    return model.parameters();
  }

  @Override
  public double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum) {
    if (data.featureCount() != model.featureCount() || data.classCount() > model.classCount()) {
      throw new IllegalArgumentException("data set has " + data.featureCount() + " features and "
          + data.classCount() + " classes; model " + model.name() + " does not fit it");
    }
    return stack.accumulate(model.parameters(), data, samples, from, to, gradSum);
  }

  @Override
  public int featureCount() {
    return model.featureCount();
  }

  @Override
  public int classCount() {
    return model.classCount();
  }

  @Override
  public int predict(Dataset data, int row) {
    return model.predict(data, row);
  }

  @Override
  public void writeState(DataOutputStream out) throws IOException {
    model.writeState(out);
  }

  @Override
  public void readState(DataInputStream in) throws IOException {
    model.readState(in);
  }
}
