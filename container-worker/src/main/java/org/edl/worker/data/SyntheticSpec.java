package org.edl.worker.data;

import java.util.HashSet;
import java.util.Set;
import org.edl.job.InvalidInputException;

/**
 * A generated data set named by a string, {@code synthetic:samples=N,features=F,classes=C,seed=S};
 * every key is optional. Being a string, it travels in the job specification like a path does.
 */
public record SyntheticSpec(int samples, int features, int classes, long seed) {
  public static final String PREFIX = "synthetic:";
  public static final int DEFAULT_SAMPLES = 4096;
  public static final int DEFAULT_FEATURES = 20;
  public static final int DEFAULT_CLASSES = 4;
  public static final long DEFAULT_SEED = 7;

  public SyntheticSpec {
    if (samples < 1 || features < 1 || classes < 1) {
      throw new IllegalArgumentException("samples, features and classes must be positive");
    }
  }

  public static boolean isSynthetic(String data) {
    return data != null && data.startsWith(PREFIX);
  }

  /** Parses the spec; unknown keys and bad numbers name the whole value in the error. */
  public static SyntheticSpec parse(String data) {
    if (!isSynthetic(data)) {
      throw new InvalidInputException("data", data, "a synthetic data set starts with '" + PREFIX + "'");
    }
    int samples = DEFAULT_SAMPLES;
    int features = DEFAULT_FEATURES;
    int classes = DEFAULT_CLASSES;
    long seed = DEFAULT_SEED;
    Set<String> seen = new HashSet<>();
    String body = data.substring(PREFIX.length()).strip();
    if (!body.isEmpty()) {
      for (String part : body.split(",", -1)) {
        int eq = part.indexOf('=');
        if (eq < 0) {
          throw new InvalidInputException("data", data, "'" + part.strip() + "' is not key=value");
        }
        String key = part.substring(0, eq).strip();
        String value = part.substring(eq + 1).strip();
        if (!seen.add(key)) {
          throw new InvalidInputException("data", data, "key '" + key + "' given twice");
        }
        switch (key) {
          case "samples" -> samples = positiveInt(data, key, value);
          case "features" -> features = positiveInt(data, key, value);
          case "classes" -> classes = positiveInt(data, key, value);
          case "seed" -> seed = seedOf(data, value);
          default -> throw new InvalidInputException("data", data,
              "unknown key '" + key + "'; use samples, features, classes, seed");
        }
      }
    }
    if (classes < 2) {
      throw new InvalidInputException("data", data, "classes must be at least 2");
    }
    if ((long) samples * features > Integer.MAX_VALUE - 8) {
      throw new InvalidInputException("data", data, "samples x features is too large for one array");
    }
    return new SyntheticSpec(samples, features, classes, seed);
  }

  public String format() {
    return PREFIX + "samples=" + samples + ",features=" + features + ",classes=" + classes
        + ",seed=" + seed;
  }

  public DatasetSummary summary() {
    return new DatasetSummary(samples, features, classes);
  }

  private static int positiveInt(String data, String key, String value) {
    int v;
    try {
      v = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new InvalidInputException("data", data, key + " '" + value + "' is not a whole number");
    }
    if (v < 1) {
      throw new InvalidInputException("data", data, key + " must be at least 1");
    }
    return v;
  }

  private static long seedOf(String data, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new InvalidInputException("data", data, "seed '" + value + "' is not a whole number");
    }
  }
}
