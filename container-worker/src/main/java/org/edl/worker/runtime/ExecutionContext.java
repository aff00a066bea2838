package org.edl.worker.runtime;

import org.edl.worker.data.Dataset;
import org.edl.worker.data.DatasetLoader;
import org.edl.worker.model.ModelFactory;
import org.edl.worker.model.TrainableModel;

/** What the main thread prepares while the background thread joins the job: data and model. */
public record ExecutionContext(Dataset data, TrainableModel model) {

  /** Prepares a worker's context; injected so that a test can watch or gate preparation. */
  @FunctionalInterface
  public interface Factory {
    ExecutionContext prepare(WorkerConfig config) throws Exception;
  }

  /** Loads the job's data set and creates its model from the job specification. */
  public static final Factory FROM_SPEC = config -> {
    Dataset data = DatasetLoader.load(config.spec().data(), config.spec().format(), config.hadoopConf());
    return new ExecutionContext(data, ModelFactory.create(config.spec(), data));
  };
}
