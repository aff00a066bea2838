package org.edl.worker.model;

import org.edl.worker.data.Dataset;

/** A trainable model that also predicts a class, so the runtime can report accuracy. */
public interface ClassifierModel extends TrainableModel {

  /** Input features this model was built for. */
  int featureCount();

  /** Output classes. */
  int classCount();

  /** The most probable class of row {@code row}. */
  int predict(Dataset data, int row);
}
