package org.edl.worker.runtime;

import java.util.Arrays;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.worker.collective.AllReduce;
import org.edl.worker.coord.Ticker;
import org.edl.worker.data.BatchSlicer;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.EpochOrder;
import org.edl.worker.job.JobSpec;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Synchronous data-parallel SGD over one ring. Each step every member takes its slice of the
 * same global batch, sums its samples' gradients, all-reduces the sums, divides by the global
 * batch and applies the result: every member ends the step with the same parameters, and the
 * same ones a single worker would reach with that global batch.
 */
public final class TrainingLoop {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingLoop.class);

  /**
   * Called at the end of every batch with this worker's report ({@code notifyBatchEnd}); the
   * reply may one day carry a topology switch. Returning a reply with {@code finish} stops the
   * loop after this step.
   */
  @FunctionalInterface
  public interface BatchEnd {
    SyncReply batchEnd(SyncReport report) throws Exception;
  }

  /** What this worker saw: steps run and its own first and last local losses. */
  public record Result(long stepsRun, double firstLocalLoss, double lastLocalLoss) {}

  private final String workerId;
  private final JobSpec spec;
  private final Dataset data;
  private final TrainableModel model;
  private final AllReduce ring;
  private final BatchEnd batchEnd;
  private final Ticker ticker;
  private final EpochOrder order;

  public TrainingLoop(String workerId, JobSpec spec, Dataset data, TrainableModel model,
      AllReduce ring, BatchEnd batchEnd, Ticker ticker) {
    this.workerId = workerId;
    this.spec = spec;
    this.data = data;
    this.model = model;
    this.ring = ring;
    this.batchEnd = batchEnd;
    this.ticker = ticker;
    this.order = new EpochOrder(data.size(), spec.seed());
  }

  /** Runs steps {@code [fromStep, toStep)}. */
  public Result run(long fromStep, long toStep) throws Exception {
    int workers = ring.size();
    int rank = ring.rank();
    int globalBatch = spec.globalBatchFor(workers);
    float learningRate = (float) spec.learningRateFor(workers);
    float[] gradient = new float[model.parameters().length];
    long logEvery = Math.max(1, (toStep - fromStep) / 10);
    double firstLoss = Double.NaN;
    double lastLoss = Double.NaN;
    long step = fromStep;
    LOG.info("Training steps {}..{} as rank {} of {}: global batch {}, learning rate {}",
        fromStep, toStep - 1, rank, workers, globalBatch, learningRate);
    while (step < toStep) {
      long start = ticker.nanos();
      BatchSlicer.Range slice = BatchSlicer.sliceForStep(step, globalBatch, rank, workers);
      int[] samples = order.samples(slice);
      Arrays.fill(gradient, 0f);
      double lossSum = model.accumulateGradients(data, samples, 0, samples.length, gradient);
      ring.sum(gradient);
      for (int i = 0; i < gradient.length; i++) {
        gradient[i] /= globalBatch;
      }
      model.applyGradients(gradient, learningRate);
      double seconds = (ticker.nanos() - start) / 1e9;
      double localLoss = samples.length == 0 ? Double.NaN : lossSum / samples.length;
      if (step == fromStep) {
        firstLoss = localLoss;
      }
      lastLoss = localLoss;
      SyncReply reply = batchEnd.batchEnd(new SyncReport(workerId, step, localLoss, seconds, samples.length));
      step++;
      if (step == toStep || (step - fromStep) % logEvery == 0) {
        LOG.info("step {}/{} local loss {} ({} ms/batch)", step, toStep,
            String.format("%.5f", localLoss), String.format("%.1f", seconds * 1e3));
      }
      if (reply != null && reply.isFinish()) {
        LOG.info("Leader asked to finish after step {}", step - 1);
        break;
      }
    }
    return new Result(step - fromStep, firstLoss, lastLoss);
  }
}
