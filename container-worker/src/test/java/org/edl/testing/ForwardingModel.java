package org.edl.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.edl.worker.data.Dataset;
import org.edl.worker.model.TrainableModel;

/**
 * A model that hands every call to another: a test overrides only the call it watches or holds
 * (a checkpoint write stopped mid-file, the parameters at the first batch).
 */
public abstract class ForwardingModel implements TrainableModel {
  protected final TrainableModel model;

  protected ForwardingModel(TrainableModel model) {
    this.model = model;
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
  public int gradientLength() {
    return model.gradientLength();
  }

  @Override
  public double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum) {
    return model.accumulateGradients(data, samples, from, to, gradSum);
  }

  @Override
  public void applyGradients(float[] averagedGradient, float learningRate) {
    model.applyGradients(averagedGradient, learningRate);
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
