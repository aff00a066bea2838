package org.edl.worker.data;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Random;

/**
 * A deterministic, learnable classification set: one Gaussian cluster per class around a random
 * centre. Every worker generates the same rows from the same spec, so nothing is shipped.
 *
 * <p>Centre coordinates are drawn with a spread that shrinks as {@code 1/sqrt(features)}, so two
 * centres lie about {@value #CENTRE_DISTANCE} noise standard deviations apart whatever the
 * width: the classes overlap a little, a linear model cannot reach zero loss, and the loss curve
 * of a demo has something to show.
 */
public final class SyntheticData {
  static final double CENTRE_DISTANCE = 3.0;

  private SyntheticData() {}

  public static Dataset generate(String spec) {
    return generate(SyntheticSpec.parse(spec));
  }

  public static Dataset generate(SyntheticSpec spec) {
    // java.util.Random's sequence is specified exactly, so it is the same on every JVM.
    Random random = new Random(spec.seed());
    int f = spec.features();
    int c = spec.classes();
    double spread = CENTRE_DISTANCE / Math.sqrt(2.0 * f);
    double[] centres = new double[c * f];
    for (int i = 0; i < centres.length; i++) {
      centres[i] = random.nextGaussian() * spread;
    }
    float[] features = new float[spec.samples() * f];
    int[] labels = new int[spec.samples()];
    for (int r = 0; r < spec.samples(); r++) {
      int label = random.nextInt(c);
      labels[r] = label;
      int row = r * f;
      int centre = label * f;
      for (int j = 0; j < f; j++) {
        features[row + j] = (float) (centres[centre + j] + random.nextGaussian());
      }
    }
    return new Dataset(features, labels, f, c);
  }

  /** Generates the set and writes it as LIBSVM text, as the demo puts it on HDFS. */
  public static void writeLibsvm(String spec, OutputStream out) throws IOException {
    LibsvmWriter.write(generate(spec), out);
  }
}
