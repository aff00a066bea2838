package org.edl.worker.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.SyntheticData;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Behaviour both built-in models must show; each test runs once per model. */
class BuiltInModelsTest {

  static Stream<String> models() {
    return Stream.of("softmax", "mlp");
  }

  private static ClassifierModel model(String name, Dataset data, long seed) {
    return ModelFactory.create(name, data.featureCount(), data.classCount(), 7, seed);
  }

  private static Dataset randomData(int rows, int features, int classes, long seed) {
    Random r = new Random(seed);
    float[] x = new float[rows * features];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) r.nextGaussian();
    }
    int[] y = new int[rows];
    for (int i = 0; i < rows; i++) {
      y[i] = r.nextInt(classes);
    }
    return new Dataset(x, y, features, classes);
  }

  private static int[] all(Dataset data) {
    return IntStream.range(0, data.size()).toArray();
  }

  private static double loss(ClassifierModel m, Dataset data, int[] samples) {
    return m.accumulateGradients(data, samples, 0, samples.length, new float[m.parameters().length]);
  }

  /**
   * Central differences against the analytic gradient, for every parameter. Loss is summed in
   * double and the step actually taken in float is used as the denominator, so float rounding of
   * {@code p + eps} does not show up as a gradient error.
   */
  @ParameterizedTest
  @MethodSource("models")
  void analyticGradientMatchesFiniteDifferences(String name) {
    Dataset data = randomData(6, 5, 3, 11);
    ClassifierModel m = model(name, data, 3);
    int[] samples = all(data);
    float[] grad = new float[m.parameters().length];
    m.accumulateGradients(data, samples, 0, samples.length, grad);

    float[] p = m.parameters();
    double eps = 1e-3;
    double worst = 0;
    for (int i = 0; i < p.length; i++) {
      float original = p[i];
      float up = (float) (original + eps);
      float down = (float) (original - eps);
      p[i] = up;
      double lossUp = loss(m, data, samples);
      p[i] = down;
      double lossDown = loss(m, data, samples);
      p[i] = original;
      double numeric = (lossUp - lossDown) / ((double) up - (double) down);
      double error = Math.abs(numeric - grad[i]) / Math.max(1.0, Math.abs(numeric));
      worst = Math.max(worst, error);
      assertEquals(numeric, grad[i], 2e-3 * Math.max(1.0, Math.abs(numeric)),
          name + " parameter " + i + " of " + p.length);
    }
    assertTrue(worst < 2e-3, "worst relative error " + worst);
  }

  /**
   * What makes N-worker data parallel equal one worker: gradient sums over any split of a batch
   * into contiguous parts add up to the whole batch's sum.
   */
  @ParameterizedTest
  @MethodSource("models")
  void gradientSumsOverAnyPartitionEqualTheWholeBatch(String name) {
    Dataset data = randomData(37, 9, 4, 5);
    ClassifierModel m = model(name, data, 8);
    int[] samples = all(data);
    Collections2.shuffle(samples, 99);
    float[] whole = new float[m.parameters().length];
    double wholeLoss = m.accumulateGradients(data, samples, 0, samples.length, whole);

    Random cuts = new Random(17);
    for (int parts = 1; parts <= 5; parts++) {
      int[] bounds = unevenBounds(samples.length, parts, cuts);
      float[] sum = new float[whole.length];
      double lossSum = 0;
      for (int k = 0; k < parts; k++) {
        // Each "worker" sums into its own buffer; the all-reduce then adds the buffers.
        float[] local = new float[whole.length];
        lossSum += m.accumulateGradients(data, samples, bounds[k], bounds[k + 1], local);
        for (int i = 0; i < local.length; i++) {
          sum[i] += local[i];
        }
      }
      assertEquals(wholeLoss, lossSum, 1e-9 * Math.abs(wholeLoss), "loss with " + parts + " parts");
      for (int i = 0; i < whole.length; i++) {
        assertEquals(whole[i], sum[i], 1e-5f * Math.max(1f, Math.abs(whole[i])),
            name + " parameter " + i + " with " + parts + " parts " + Arrays.toString(bounds));
      }
    }
  }

  /** Strictly increasing cut points with unequal part sizes (when parts > 1). */
  private static int[] unevenBounds(int n, int parts, Random random) {
    int[] bounds = new int[parts + 1];
    bounds[parts] = n;
    int[] inner = random.ints(1, n).distinct().limit(parts - 1).sorted().toArray();
    System.arraycopy(inner, 0, bounds, 1, parts - 1);
    return bounds;
  }

  @ParameterizedTest
  @MethodSource("models")
  void lossFallsUnderPlainSgdOnSyntheticData(String name) {
    Dataset data = SyntheticData.generate("synthetic:samples=1024,features=20,classes=4,seed=7");
    ClassifierModel m = ModelFactory.create(name, data.featureCount(), data.classCount(), 16, 1);
    int[] order = all(data);
    Collections2.shuffle(order, 2);
    double before = loss(m, data, order) / data.size();
    int batch = 32;
    for (int t = 0; t < 300; t++) {
      int from = (t * batch) % data.size();
      float[] grad = new float[m.parameters().length];
      m.accumulateGradients(data, order, from, from + batch, grad);
      for (int i = 0; i < grad.length; i++) {
        grad[i] /= batch;
      }
      m.applyGradients(grad, 0.1f);
    }
    double after = loss(m, data, order) / data.size();
    assertTrue(after < 0.5 * before, "mean loss " + before + " -> " + after);
    long correct = IntStream.range(0, data.size()).filter(r -> m.predict(data, r) == data.label(r)).count();
    // Four overlapping clusters: chance is 25%, the best possible a little under 90%.
    assertTrue(correct > 0.8 * data.size(), "accuracy " + correct + "/" + data.size());
  }

  @ParameterizedTest
  @MethodSource("models")
  void sameSeedGivesIdenticalParametersAndAnotherSeedDoesNot(String name) {
    float[] a = ModelFactory.create(name, 12, 5, 9, 42).parameters();
    float[] b = ModelFactory.create(name, 12, 5, 9, 42).parameters();
    float[] c = ModelFactory.create(name, 12, 5, 9, 43).parameters();
    assertArrayEquals(a, b);
    assertFalse(Arrays.equals(a, c));
  }

  /** Fisher-Yates for an int[] with a seeded generator, for test orders. */
  static final class Collections2 {
    static void shuffle(int[] a, long seed) {
      Random r = new Random(seed);
      for (int i = a.length - 1; i > 0; i--) {
        int j = r.nextInt(i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
      }
    }
  }
}
