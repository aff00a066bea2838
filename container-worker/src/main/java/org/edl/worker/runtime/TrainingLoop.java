package org.edl.worker.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.edl.job.JobSpec;
import org.edl.thrift.SyncReport;
import org.edl.worker.collective.AllReduce;
import org.edl.worker.collective.GradientLoops;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.coord.Ticker;
import org.edl.worker.data.BatchSlicer;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.EpochOrder;
import org.edl.worker.data.UpcomingBatches;
import org.edl.worker.model.StepAware;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Synchronous data-parallel SGD over a ring that may change between batches. Each step every
 * member takes its slice of the same global batch, sums its samples' gradients, all-reduces the
 * sums, divides by the global batch and applies the result: every member ends the step with the
 * same parameters, and the same ones a single worker would reach with that global batch.
 *
 * <p>The data cursor is the global sample position where the next batch starts; every step
 * moves it by that step's global batch, which the job's batch rule derives from the ring size.
 * All members of a ring hold the same cursor, and a newcomer is handed it with the model, so a
 * change of parallelism neither repeats nor skips a sample.
 *
 * <p>Failures: when the all-reduce fails (a peer closed or timed out) or the batch end says
 * {@link RecoveryNeeded}, the {@link Recoverer} carries the worker onto the survivors' ring and
 * says where to go on from: the loop's step and cursor jump there (back to a checkpoint, or on
 * from the survivor with the most progress).
 */
public final class TrainingLoop {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingLoop.class);

  /**
   * {@code notifyBatchEnd}: called at the end of every batch with this worker's report and the
   * position of the next batch. Returns the ring for the next batch: the same one, the one of a
   * new topology, or null to stop (the job finished or this worker left).
   */
  @FunctionalInterface
  public interface BatchEnd {
    AllReduce batchEnd(SyncReport report, ModelBroadcast.Position next) throws Exception;
  }

  /**
   * Carries this worker through a failure of its ring. {@code lastCompletedStep} is the last step
   * whose gradients its model holds, {@code next} the position after it.
   */
  @FunctionalInterface
  public interface Recoverer {
    Resumed recover(long lastCompletedStep, ModelBroadcast.Position next, Exception cause) throws Exception;
  }

  /**
   * After the job's last step: returns once the job's output is written (by this worker if it
   * leads), or throws {@link RecoveryNeeded} when a member failed before it was: the loop then
   * recovers and trains on.
   */
  @FunctionalInterface
  public interface Finisher {
    void finish(ModelBroadcast.Position end) throws Exception;
  }

  /** The ring to train on after a recovery and where to start; the model is already there. */
  public record Resumed(AllReduce ring, ModelBroadcast.Position from) {}

  /** A batch end's sync reply said a member failed: stop on this ring and recover. */
  public static final class RecoveryNeeded extends Exception {
    private static final long serialVersionUID = 1L;

    public RecoveryNeeded(String message) {
      super(message);
    }
  }

  /** What this worker saw: steps run, its own first and last local losses, where it stopped. */
  public record Result(long stepsRun, double firstLocalLoss, double lastLocalLoss, long nextStep) {}

  private final String workerId;
  private final JobSpec spec;
  private final Dataset data;
  private final TrainableModel model;
  private final BatchEnd batchEnd;
  private final Ticker ticker;
  private final WorkerListener listener;
  private final EpochOrder order;
  /** The same order for a model that plans steps ahead on another thread ({@link UpcomingBatches}). */
  private final EpochOrder aheadOrder;
  private final Recoverer recoverer;
  private final Finisher finisher;

  public TrainingLoop(String workerId, JobSpec spec, Dataset data, TrainableModel model,
      BatchEnd batchEnd, Ticker ticker, WorkerListener listener) {
    this(workerId, spec, data, model, batchEnd, ticker, listener, null, null);
  }

  /**
   * @param recoverer how to survive a failed ring; null: a failure ends the run
   * @param finisher  what happens after the last step; null: the run just ends there
   */
  public TrainingLoop(String workerId, JobSpec spec, Dataset data, TrainableModel model,
      BatchEnd batchEnd, Ticker ticker, WorkerListener listener, Recoverer recoverer, Finisher finisher) {
    this.recoverer = recoverer;
    this.finisher = finisher;
    this.workerId = workerId;
    this.spec = spec;
    this.data = data;
    this.model = model;
    this.batchEnd = batchEnd;
    this.ticker = ticker;
    this.listener = listener;
    this.order = new EpochOrder(data.size(), spec.training().seed());
    this.aheadOrder = new EpochOrder(data.size(), spec.training().seed());
  }

  /** The all-reduced sum of a step's per-sample gradients divided by its global batch, in place. */
  static void average(float[] gradientSum, int globalBatch) {
    GradientLoops.divide(gradientSum, globalBatch);
  }

  /** Runs from {@code from} until step {@code toStep} (exclusive) or until batch end says stop. */
  public Result run(ModelBroadcast.Position from, long toStep, AllReduce firstRing) throws Exception {
    return run(from, toStep, firstRing, new float[model.gradientLength()]);
  }

  /**
   * As {@link #run(ModelBroadcast.Position, long, AllReduce)}, with the gradient buffer allocated
   * beforehand: a newcomer allocates it while it waits for its switch, since zeroing the 100 MB of
   * a large model's buffer after the switch would hold every member's first all-reduce.
   */
  public Result run(ModelBroadcast.Position from, long toStep, AllReduce firstRing, float[] gradient)
      throws Exception {
    if (gradient.length != model.gradientLength()) {
      throw new IllegalArgumentException("a gradient buffer of " + gradient.length + " floats for a model of "
          + model.gradientLength());
    }
    AllReduce ring = firstRing;
    long fromStep = from.nextStep();
    long logEvery = Math.max(1, (toStep - fromStep) / 10);
    double firstLoss = Double.NaN;
    double lastLoss = Double.NaN;
    long step = fromStep;
    long batchStart = from.batchStart();
    int loggedWorkers = -1;
    AllReduce timedRing = null;
    while (true) {
      if (step >= toStep) {
        if (finisher == null) {
          break;
        }
        ModelBroadcast.Position end = new ModelBroadcast.Position(step, batchStart);
        try {
          finisher.finish(end);
          break;
        } catch (RecoveryNeeded e) {
          if (recoverer == null) {
            throw e;
          }
          Resumed r = recoverer.recover(step - 1, end, e);
          ring = r.ring();
          step = r.from().nextStep();
          batchStart = r.from().batchStart();
          loggedWorkers = -1;
          continue;
        }
      }
      // The worker's own time runs from here (a test's pacing in beforeBatch included) to the
      // all-reduce; the all-reduce itself waits for the slowest member, so it is left out.
      long computeStart = ticker.nanos();
      listener.beforeBatch(workerId, step);
      int workers = ring.size();
      int rank = ring.rank();
      int globalBatch = spec.globalBatchFor(workers);
      float learningRate = (float) spec.learningRateFor(workers);
      boolean firstOnThisRing = ring != timedRing;
      timedRing = ring;
      if (workers != loggedWorkers) {
        loggedWorkers = workers;
        LOG.info("Training from step {} as rank {} of {}: global batch {}, learning rate {}",
            step, rank, workers, globalBatch, learningRate);
      }
      long start = ticker.nanos();
      // A switch's ring slices its first step by the order (joiners start it late).
      BatchSlicer.Range slice = ring instanceof TrainingRing t ? t.slice(batchStart, globalBatch)
          : BatchSlicer.slice(batchStart, globalBatch, rank, workers);
      int[] samples = order.samples(slice);
      GradientLoops.zero(gradient);
      double lossSum;
      double computeSeconds = 0;
      long allReduceStart = 0;
      try {
        // A model that all-reduces in a group of its own (a script's) reports a lost member as
        // the ring's all-reduce does: unchecked, from inside its step.
        if (model instanceof StepAware aware) {
          aware.stepStarting(step);
          aware.upcoming(new UpcomingBatches(step, samples, batchStart, globalBatch, rank, workers, toStep, aheadOrder));
        }
        lossSum = model.accumulateGradients(data, samples, 0, samples.length, gradient);
        computeSeconds = (ticker.nanos() - computeStart) / 1e9;
        if (model instanceof StepAware aware && !Double.isNaN(aware.computeSeconds())) {
          computeSeconds = aware.computeSeconds();
        }
        allReduceStart = ticker.nanos();
        ring.sum(gradient);
      } catch (IOException | UncheckedIOException e) {
        if (recoverer == null) {
          throw e;
        }
        // The gradients of this step were not applied: the model holds step - 1.
        Resumed r = recoverer.recover(step - 1, new ModelBroadcast.Position(step, batchStart), e);
        ring = r.ring();
        step = r.from().nextStep();
        batchStart = r.from().batchStart();
        loggedWorkers = -1;
        continue;
      }
      long updateStart = ticker.nanos();
      average(gradient, globalBatch);
      model.applyGradients(gradient, learningRate);
      long end = ticker.nanos();
      double seconds = (end - start) / 1e9;
      if (firstOnThisRing) {
        // Where a change of ring costs shows: the all-reduce waits for new links and newcomers.
        LOG.info("First batch on this ring: {} ms (computing {} ms, all-reduce {} ms, update {} ms)",
            (end - start) / 1_000_000, String.format("%.0f", computeSeconds * 1e3),
            (updateStart - allReduceStart) / 1_000_000, (end - updateStart) / 1_000_000);
      }
      listener.batchTrained(workerId, step, slice, samples);
      double localLoss = samples.length == 0 ? Double.NaN : lossSum / samples.length;
      if (step == fromStep) {
        firstLoss = localLoss;
      }
      lastLoss = localLoss;
      SyncReport report = new SyncReport(workerId, step, localLoss, seconds, samples.length);
      report.setBatchStart(batchStart);
      report.setEpochSize(data.size());
      report.setComputeSeconds(computeSeconds);
      step++;
      batchStart += globalBatch;
      if (step == toStep || (step - fromStep) % logEvery == 0) {
        LOG.info("step {}/{} local loss {} ({} ms/batch)", step, toStep,
            String.format("%.5f", localLoss), String.format("%.1f", seconds * 1e3));
      }
      ModelBroadcast.Position next = new ModelBroadcast.Position(step, batchStart);
      try {
        ring = batchEnd.batchEnd(report, next);
      } catch (RecoveryNeeded e) {
        if (recoverer == null) {
          throw e;
        }
        Resumed r = recoverer.recover(step - 1, next, e);
        ring = r.ring();
        step = r.from().nextStep();
        batchStart = r.from().batchStart();
        loggedWorkers = -1;
      }
      if (ring == null) {
        LOG.info("Stopped after step {}", step - 1);
        break;
      }
    }
    return new Result(step - fromStep, firstLoss, lastLoss, step);
  }
}
