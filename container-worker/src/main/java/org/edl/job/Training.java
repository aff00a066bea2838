package org.edl.job;


/**
 * What is trained, and how: the model and the backend that computes it, the steps, the batch and
 * learning rate and the rule by which they follow the worker count, the seed.
 *
 * @param model        built-in model ({@code softmax}, {@code mlp}), or with the {@code emulated}
 *                     backend a profiled one ({@link JobSpec#EMULATED_MODELS})
 * @param backend      compute backend: {@code cpu}, or {@code emulated} (a profiled model's step
 *                     time and real parameter count, see {@code org.edl.worker.emulated})
 * @param steps        mini-batches to train
 * @param batchSize    global batch (FIXED_GLOBAL) or per-worker batch (FIXED_PER_WORKER)
 * @param batchRule    how the batch and learning rate follow the worker count
 * @param learningRate base learning rate (per-worker rule: scaled by the worker count)
 * @param hidden       hidden units of the MLP
 * @param seed         seed for initialisation and sample order
 * @param profileSync  emulated backend only: each step also waits the profile's gradient
 *                     synchronisation time, and the all-reduce moves a token vector instead of
 *                     the real gradient (a stand-in for machines that cannot all-reduce the real
 *                     size at the profile's pace); the broadcast to newcomers and checkpoints
 *                     still move the real size
 */
public record Training(String model, String backend, long steps, int batchSize, BatchRule batchRule,
    double learningRate, int hidden, long seed, boolean profileSync) {

  /** The per-worker learning rate under this batch rule. */
  public double learningRateFor(int workerCount) {
    return learningRate * learningRateScaleFor(workerCount);
  }

  /** What this batch rule multiplies the base learning rate by at {@code workerCount} workers. */
  public double learningRateScaleFor(int workerCount) {
    return batchRule == BatchRule.FIXED_PER_WORKER ? workerCount : 1;
  }

  /** The global batch at {@code workerCount} workers under this batch rule. */
  public int globalBatchFor(int workerCount) {
    return batchRule == BatchRule.FIXED_PER_WORKER ? batchSize * workerCount : batchSize;
  }
}
