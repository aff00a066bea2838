package org.edl.worker.model;

import java.util.List;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.DatasetSummary;

/** Builds a built-in model by its command-line name, sized to the data set. */
public final class ModelFactory {
  /** Names accepted by {@link #create}, sorted. */
  public static final List<String> NAMES = List.of(Mlp.NAME, SoftmaxRegression.NAME);

  private ModelFactory() {}

  /**
   * A freshly initialised model; the same arguments give bit-identical parameters everywhere.
   * {@code hidden} is used by {@code mlp} only.
   */
  public static ClassifierModel create(String name, int features, int classes, int hidden, long seed) {
    if (name == null) {
      throw unknown(null);
    }
    if (features < 1) {
      throw new InvalidInputException("features", features, "must be at least 1");
    }
    if (classes < 1) {
      throw new InvalidInputException("classes", classes, "must be at least 1");
    }
    return switch (name) {
      case SoftmaxRegression.NAME -> new SoftmaxRegression(features, classes, seed);
      case Mlp.NAME -> {
        if (hidden < 1) {
          throw new InvalidInputException("hidden", hidden, "must be at least 1");
        }
        yield new Mlp(features, hidden, classes, seed);
      }
      default -> throw unknown(name);
    };
  }

  /** The job's model ({@code model}, {@code hidden}, {@code seed}) sized to {@code data}. */
  public static ClassifierModel create(JobSpec spec, Dataset data) {
    return create(spec.training().model(), data.featureCount(), data.classCount(), spec.training().hidden(),
        spec.training().seed());
  }

  /** The same, sized from a summary, for code that has not loaded the data (the client). */
  public static ClassifierModel create(JobSpec spec, DatasetSummary shape) {
    return create(spec.training().model(), shape.features(), shape.classes(), spec.training().hidden(),
        spec.training().seed());
  }

  private static InvalidInputException unknown(String name) {
    return new InvalidInputException("model", name, "unknown model; choose one of " + String.join(", ", NAMES));
  }
}
