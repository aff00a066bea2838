package org.edl.worker.data;

import java.util.Objects;

/**
 * A dense, in-memory classification data set: {@code size} rows of {@code featureCount} floats,
 * row-major, and a label in {@code [0, classCount)} per row. Every worker loads the whole set;
 * which rows it trains on is the data pipeline's business.
 */
public final class Dataset {
  private final float[] features;
  private final int[] labels;
  private final int featureCount;
  private final int classCount;

  public Dataset(float[] features, int[] labels, int featureCount, int classCount) {
    this.features = Objects.requireNonNull(features, "features");
    this.labels = Objects.requireNonNull(labels, "labels");
    if (featureCount <= 0 || classCount <= 0) {
      throw new IllegalArgumentException("featureCount and classCount must be positive");
    }
    if ((long) labels.length * featureCount != features.length) {
      throw new IllegalArgumentException("features.length " + features.length + " != "
          + labels.length + " rows x " + featureCount + " features");
    }
    this.featureCount = featureCount;
    this.classCount = classCount;
  }

  public int size() {
    return labels.length;
  }

  public int featureCount() {
    return featureCount;
  }

  public int classCount() {
    return classCount;
  }

  /** Row-major features; row {@code i} starts at {@code i * featureCount()}. Not copied. */
  public float[] features() {
    return features;
  }

  /** Labels in {@code [0, classCount)}. Not copied. */
  public int[] labels() {
    return labels;
  }

  public int label(int row) {
    return labels[row];
  }

  public float feature(int row, int column) {
    return features[row * featureCount + column];
  }
}
