package org.edl.worker.emulated;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.concurrent.locks.LockSupport;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.Floats;
import org.edl.worker.model.IncompatibleStateException;
import org.edl.worker.model.PlacementAware;
import org.edl.worker.model.TrainableModel;

/**
 * The {@code emulated} backend's stand-in for a model too large for these machines: a parameter
 * vector of the real model's size (so the all-reduce and the broadcast to newcomers move the real
 * number of bytes) and a batch that takes as long as the measured profile says it computes at the
 * ring's placement and per-GPU batch. It learns nothing: gradients are zero and the loss is NaN.
 * Its name always starts with {@code emulated:}, so that no output passes it off as training.
 */
public final class EmulatedModel implements TrainableModel, PlacementAware {
  /** How the emulation waits; injected so that a test can record the waits instead. */
  @FunctionalInterface
  public interface Sleeper {
    Sleeper PARK = nanos -> {
      long deadline = System.nanoTime() + nanos;
      long left;
      while ((left = deadline - System.nanoTime()) > 0) {
        LockSupport.parkNanos(left);
      }
    };

    void sleepNanos(long nanos);
  }

  /** What the all-reduce moves each step when the profile's sync time stands in for the transfer. */
  static final int TOKEN_GRADIENT = 1024;

  private final StepProfile profile;
  private final float[] parameters;
  private final boolean profileSync;
  private final int gpusPerWorker;
  private final Sleeper sleeper;
  private volatile String placement;

  public EmulatedModel(StepProfile profile, int parameterCount, int gpusPerWorker, Sleeper sleeper) {
    this(profile, parameterCount, gpusPerWorker, sleeper, false);
  }

  /**
   * @param profileSync wait the profile's whole step time (its sync time included) and all-reduce
   *                    only a token vector; see {@link org.edl.job.Training#profileSync()}
   */
  public EmulatedModel(StepProfile profile, int parameterCount, int gpusPerWorker, Sleeper sleeper,
      boolean profileSync) {
    this.profileSync = profileSync;
    if (parameterCount < 1) {
      throw new IllegalArgumentException("parameterCount=" + parameterCount);
    }
    this.profile = profile;
    this.parameters = new float[parameterCount];
    this.gpusPerWorker = Math.max(1, gpusPerWorker);
    this.sleeper = sleeper;
    this.placement = String.valueOf(this.gpusPerWorker);
  }

  @Override
  public String name() {
    return "emulated:" + profile.model();
  }

  @Override
  public float[] parameters() {
    return parameters;
  }

  /** What a new emulated model holds before its first step: zeros (it learns nothing, so none are better). */
  public float[] startingParameters() {
    return new float[parameters.length];
  }

  @Override
  public int gradientLength() {
    return profileSync ? Math.min(TOKEN_GRADIENT, parameters.length) : parameters.length;
  }

  public boolean profileSync() {
    return profileSync;
  }

  /** Gradients are zero: nothing to apply (and with the stand-in they are shorter than the parameters). */
  @Override
  public void applyGradients(float[] averagedGradient, float learningRate) {
  }

  @Override
  public void placedOn(String newPlacement) {
    profile.computeSeconds(newPlacement, 1); // fails now, naming the placement, if not measured
    placement = newPlacement;
  }

  public String placement() {
    return placement;
  }

  /**
   * Waits the profile's compute time for this worker's share of the batch (with the stand-in, the
   * whole step time: compute and gradient synchronisation); adds nothing.
   */
  @Override
  public double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum) {
    int perGpu = (int) Math.ceil((to - from) / (double) gpusPerWorker);
    double seconds = profileSync ? profile.stepSeconds(placement, perGpu) : profile.computeSeconds(placement, perGpu);
    sleeper.sleepNanos((long) (seconds * 1e9));
    return Double.NaN;
  }

  @Override
  public void writeState(DataOutputStream out) throws IOException {
    out.writeUTF(name());
    out.writeInt(parameters.length);
    Floats.write(out, parameters);
  }

  @Override
  public void readState(DataInputStream in) throws IOException {
    String name = in.readUTF();
    int n = in.readInt();
    if (!name.equals(name()) || n != parameters.length) {
      throw new IncompatibleStateException("state of " + name + " with " + n + " parameters does not fit "
          + name() + " with " + parameters.length);
    }
    System.arraycopy(Floats.read(in, n), 0, parameters, 0, n);
  }
}
