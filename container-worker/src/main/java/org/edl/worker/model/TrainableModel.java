package org.edl.worker.model;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.edl.worker.data.Dataset;

/**
 * What a job author writes: local gradients for a batch, apply averaged gradients, state out and
 * in. The runtime does everything else (ring all-reduce, broadcast to newcomers, checkpoints).
 *
 * <p>All parameters live in one flat array so the runtime can all-reduce and broadcast them
 * without knowing the model's shape.
 */
public interface TrainableModel {

  /** Name as given on the command line ({@code softmax}, {@code mlp}). */
  String name();

  /** The live parameter vector; the runtime reads and overwrites it in place. */
  float[] parameters();

  /**
   * Floats of the gradient the runtime all-reduces each step: all parameters, unless a stand-in
   * model moves less (the emulated backend with the profile's sync time).
   */
  default int gradientLength() {
    return parameters().length;
  }

  /**
   * Adds to {@code gradSum} the sum over {@code samples[from..to)} of each sample's loss
   * gradient and returns the summed loss. Sums, not means, so that N workers' results add up to
   * exactly one worker's over the same global batch.
   */
  double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum);

  /** {@code parameters -= learningRate * averagedGradient}. */
  default void applyGradients(float[] averagedGradient, float learningRate) {
    float[] p = parameters();
    for (int i = 0; i < p.length; i++) {
      p[i] -= learningRate * averagedGradient[i];
    }
  }

  /** Writes everything needed to resume: shape and parameters. */
  void writeState(DataOutputStream out) throws IOException;

  /** Reads what {@link #writeState} wrote; fails on a shape mismatch. */
  void readState(DataInputStream in) throws IOException;
}
