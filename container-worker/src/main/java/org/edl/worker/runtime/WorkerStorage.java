package org.edl.worker.runtime;

import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import org.edl.job.ModelOutput;
import org.edl.job.WorkerEnv;
import org.edl.job.WriterEpoch;
import org.edl.thrift.JobMeta;
import org.edl.thrift.JobProgress;
import org.edl.thrift.StopOrder;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.coord.CheckpointRef;
import org.edl.worker.coord.JobOutput;
import org.edl.worker.coord.JobPosition;
import org.edl.worker.coord.Leadership;
import org.edl.worker.coord.rpc.Wire;
import org.edl.worker.data.Dataset;
import org.edl.worker.model.IncompatibleStateException;
import org.edl.worker.model.StartsOverItself;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's files: the checkpoint a restarted job starts from (read before it joins, loaded with
 * the execution context), the state consistent recovery goes back to (a checkpoint, or the seeded
 * initial state), the stop-resume checkpoint and the model with its metrics that the leader
 * writes. Every write by a leader is put in place only while its leadership is still the newest.
 */
final class WorkerStorage {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerStorage.class);

  private final WorkerConfig config;
  private final Leadership coordinator;
  private final WorkerListener listener;
  private final Supplier<ProgressReporter> reporter;
  /** The model's parameters before the first step (as the first ring starts it), built or copied when asked. */
  private volatile Supplier<float[]> initialParameters;
  /** What this worker wrote as the job's leader at the end; null otherwise. */
  private volatile ModelOutput.Written written;

  /** @param reporter the leader's progress reporter, if it reports (the final report names the model) */
  WorkerStorage(WorkerConfig config, Leadership coordinator, WorkerListener listener,
      Supplier<ProgressReporter> reporter) {
    this.config = config;
    this.coordinator = coordinator;
    this.listener = listener;
    this.reporter = reporter;
  }

  /**
   * Consistent recovery with no checkpoint yet goes back to this: the model before its first step.
   * A fresh model's parameters are built again from the seed when needed; a restored one's (no
   * seed gives them) are copied now.
   */
  void keepInitialState(ExecutionContext context, boolean restored) {
    if (!restored && context.startingParameters() != null) {
      initialParameters = context.startingParameters();
    } else {
      float[] copy = context.model().parameters().clone();
      initialParameters = () -> copy;
    }
  }

  /** The model and metrics this worker wrote as the job's last leader, if it did. */
  Optional<ModelOutput.Written> written() {
    return Optional.ofNullable(written);
  }

  /** The checkpoint this worker restarts from, read (not yet loaded) before it joins anything. */
  Optional<Checkpoint> readRestore() throws IOException {
    if (config.restoreFrom() == null) {
      return Optional.empty();
    }
    try {
      // A directory of periodic checkpoints: a damaged or partial newest one is skipped (WARN).
      Checkpoint c = CheckpointDirectory.readNewestValid(config.hadoopConf(), config.restoreFrom());
      LOG.info("Restarting from checkpoint {}", c);
      return Optional.of(c);
    } catch (IOException e) {
      throw restoreError(e);
    }
  }

  /** Loads the checkpoint's parameters, once it is known to continue this job with this data. */
  void restore(Checkpoint c, ExecutionContext context) throws IOException {
    try {
      c.meta().requireContinuable(config.spec(), context.data().size(), c.path().toString());
      c.restoreInto(context.model());
    } catch (IOException e) {
      throw restoreError(e);
    }
  }

  private IOException restoreError(IOException e) {
    String message = WorkerEnv.RESTORE_FROM + "=" + config.restoreFrom() + ": cannot restore: " + e.getMessage();
    IOException wrapped = e instanceof IncompatibleStateException
        ? new IncompatibleStateException(message) : new IOException(message);
    wrapped.initCause(e);
    return wrapped;
  }

  /**
   * Where the first ring starts: the leader's job position (step 0, or a restored job's
   * checkpoint). A worker must hold the parameters of that position: a restoring worker's own
   * checkpoint must be the leader's, and a fresh one cannot join a restarted job's first ring.
   */
  ModelBroadcast.Position firstRingStart(JobMeta meta, Optional<Checkpoint> restore) {
    ModelBroadcast.Position from = new ModelBroadcast.Position(meta.getStep(),
        meta.isSetSamplesSeen() ? meta.getSamplesSeen() : 0);
    boolean fresh = from.nextStep() == 0 && from.batchStart() == 0;
    if (restore.isPresent()) {
      CheckpointMeta c = restore.get().meta();
      if (c.nextStep() != from.nextStep() || c.samplesSeen() != from.batchStart()) {
        throw new IllegalStateException("this worker restored step " + c.nextStep() + " (sample " + c.samplesSeen()
            + ") from " + restore.get().path() + " but the leader starts the job at step " + from.nextStep()
            + " (sample " + from.batchStart() + "): " + (fresh
                ? "the leader was started without " + WorkerEnv.RESTORE_FROM
                : "the workers were given different checkpoints"));
      }
    } else if (!fresh) {
      throw new IllegalStateException("the job restarts at step " + from.nextStep() + " from a checkpoint, but "
          + config.workerId() + " was started without " + WorkerEnv.RESTORE_FROM);
    }
    if (from.nextStep() > 0) {
      LOG.info("Starting the restarted job at step {} (sample position {})", from.nextStep(), from.batchStart());
    }
    return from;
  }

  /** The leader's part of a stop for a restart: model and job position, as every member holds them. */
  Checkpoint writeCheckpoint(TrainableModel model, Dataset data, StopOrder order,
      ModelBroadcast.Position next, int workers) throws IOException {
    JobPosition at = coordinator.position().orElseThrow(
        () -> new IllegalStateException("lost leadership before writing the checkpoint"));
    if (at.step() != next.nextStep() || at.samplesSeen() != next.batchStart()) {
      throw new IllegalStateException("the leader's job position (step " + at.step() + ", sample "
          + at.samplesSeen() + ") disagrees with its own loop's (" + next + ")");
    }
    CheckpointMeta cm = CheckpointMeta.of(at, config.spec(), workers, model.name(), model.parameters().length,
        data.size(), Instant.now(), coordinator.leaderEpoch());
    // Streamed, not snapshot first: every worker has stopped, and a copy of a large model (100 MB
    // for the emulated ResNet-50) next to its gradient ran a 768 MB container out of heap.
    Checkpoint c = Checkpoint.write(config.hadoopConf(), order.getDirectory(), cm, model, config.appId(),
        coordinator::stillLeading);
    try {
      coordinator.stopped(c.path().toString(), config.rpcTimeout());
    } catch (org.edl.worker.coord.Refused e) {
      throw new IOException("the stop's checkpoint " + c.path() + " is written but the record could not say so: "
          + e.getMessage(), e);
    }
    removeStaleTemporaries(order.getDirectory(), cm.leaderEpoch());
    return c;
  }

  /**
   * A stop's directory is written again by a successor when the stop's leader died mid-write:
   * what the dead one left goes once the successor's checkpoint is in place.
   */
  private void removeStaleTemporaries(String directory, long epoch) {
    try {
      CheckpointDirectory.removeStaleTemporaries(config.hadoopConf(), directory,
          new WriterEpoch(config.appId(), epoch));
    } catch (IOException e) {
      LOG.warn("Could not clear stale temporaries in {}: {}", directory, e.toString());
    }
  }

  /** Consistent recovery's checkpoint, read back first: one damaged since it was written gives way to the one before. */
  Optional<CheckpointRef> usableCheckpoint(CheckpointRef newest) {
    try {
      String name = new org.apache.hadoop.fs.Path(newest.path()).getName();
      return CheckpointDirectory.newestValidUpTo(config.hadoopConf(), newest.path()).map(c -> c.path().getName().equals(name)
          ? newest : new CheckpointRef(c.path().toString(), c.meta().toPosition()));
    } catch (IOException e) {
      // Nothing better is known: the survivors try it and report what they find.
      LOG.warn("Could not check checkpoint {} before recovery ({}); ordering it as it is", newest.path(), e.toString());
      return Optional.of(newest);
    }
  }

  /** Consistent recovery: the order's checkpoint, or (null) the state this worker started with. */
  void restoreState(TrainableModel model, String checkpoint) throws IOException {
    if (checkpoint == null && model instanceof StartsOverItself script) {
      script.startOver();
      LOG.info("Sent the model back to the job's start (no checkpoint was written yet)");
      return;
    }
    if (checkpoint == null) {
      float[] start = initialParameters.get();
      float[] p = model.parameters();
      if (start.length != p.length) {
        throw new IncompatibleStateException("the job's starting state has " + start.length
            + " parameters; " + model.name() + " has " + p.length);
      }
      System.arraycopy(start, 0, p, 0, p.length);
      LOG.info("Restored the job's initial state (no checkpoint was written yet)");
      return;
    }
    Checkpoint.read(config.hadoopConf(), checkpoint).restoreInto(model);
  }

  /** The leader's end of the job: model and metrics, only while it still leads; the AM hears where. */
  JobOutput writeOutput(TrainableModel model, long started) throws Exception {
    listener.writingOutput(config.workerId());
    org.edl.worker.coord.RunSummary s = coordinator.summary().orElseThrow(
        () -> new IllegalStateException("lost leadership before writing the model"));
    double wall = (config.ticker().nanos() - started) / 1e9;
    ModelOutput.State state = new ModelOutput.State() {
      @Override
      public int expectedBytes() {
        return model.parameters().length * Float.BYTES + 256;
      }

      @Override
      public void writeTo(java.io.DataOutputStream out) throws IOException {
        model.writeState(out);
      }
    };
    ModelOutput.Metrics metrics = ModelOutput.Metrics.of(model.name(), s.workers(), s.steps(), s.samples(),
        s.firstLoss(), s.lastLoss(), s.samplesPerSecond(), wall, s.leaderEpoch());
    ModelOutput.Written out = OutputRetry.standard().write(() -> ModelOutput.write(config.spec().output(), state,
        metrics, config.hadoopConf(), config.appId(), coordinator::stillLeading), coordinator::stillLeading);
    written = out;
    LOG.info("Model written to {}, metrics to {}; loss {} -> {} (leader epoch {})", out.model(), out.metrics(),
        s.firstLoss(), s.lastLoss(), s.leaderEpoch());
    ProgressReporter r = reporter.get();
    if (r != null) {
      JobProgress last = Wire.progress(coordinator.progress().orElseThrow());
      last.setModelPath(out.model().toString());
      last.setMetricsPath(out.metrics().toString());
      r.reportNow(last);
    }
    return new JobOutput(out.model().toString(), out.metrics().toString());
  }
}
