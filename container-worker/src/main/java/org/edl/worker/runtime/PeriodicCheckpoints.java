package org.edl.worker.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.edl.job.WriterEpoch;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.checkpoint.CheckpointSchedule;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.coord.CheckpointRef;
import org.edl.worker.coord.JobPosition;
import org.edl.worker.coord.Ticker;
import org.edl.worker.coord.Leadership;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's periodic checkpoints into {@code <output>/checkpoints/periodic/}. At the end of a
 * step that the schedule finds due, the training thread waits for every member's report of the
 * step (all hold identical parameters then), copies the model's state in memory and goes on;
 * a background thread writes the copy and then deletes all but the newest K. A checkpoint due
 * while the previous one is still being written waits for the next batch end, so at most one
 * write is ever in flight and the one being written is never pruned.
 *
 * <p>A leader killed or paused past its session mid-write leaves a hidden temporary behind. Each
 * leadership clears what older epochs of its application left, on the same thread as its writes
 * (so never while its own is in flight): once at its first batch end, and again after each
 * write, for temporaries of a fenced writer that was paused until after the first pass.
 */
public final class PeriodicCheckpoints implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeriodicCheckpoints.class);
  /** Under the job's output directory; stop-resume uses {@code checkpoints/restart-<k>} beside it. */
  static final String SUBDIRECTORY = "checkpoints/periodic";

  /** Describes the model at a completed step, at the leader's job position. */
  @FunctionalInterface
  interface MetaOf {
    CheckpointMeta at(JobPosition position, int workers);
  }

  private final Configuration conf;
  private final String appId;
  private final String directory;
  private final int keep;
  private final CheckpointSchedule schedule;
  private final Leadership coordinator;
  private final TrainableModel model;
  private final MetaOf metaOf;
  private final Ticker ticker;
  private final Duration timeout;
  private final WorkerListener listener;
  private final String workerId;
  private final ExecutorService writer;
  private Future<?> inFlight;
  /** The newest leader epoch whose takeover pass was started; 0: none yet. Training thread only. */
  private long sweptEpoch;

  PeriodicCheckpoints(Configuration conf, String appId, String output, int keep, CheckpointSchedule schedule,
      Leadership coordinator, TrainableModel model, MetaOf metaOf, Ticker ticker, Duration timeout,
      WorkerListener listener, String workerId) {
    this.conf = conf;
    this.appId = appId;
    this.directory = directoryUnder(output);
    this.keep = keep;
    this.schedule = schedule;
    this.coordinator = coordinator;
    this.model = model;
    this.metaOf = metaOf;
    this.ticker = ticker;
    this.timeout = timeout;
    this.listener = listener;
    this.workerId = workerId;
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "edl-checkpoint-" + workerId);
      t.setDaemon(true);
      return t;
    });
  }

  public static String directoryUnder(String output) {
    return new Path(output, SUBDIRECTORY).toString();
  }

  /** The leader's batch end of step {@code next.nextStep() - 1} on a ring of {@code workers}. */
  void afterStep(ModelBroadcast.Position next, int workers) throws InterruptedException {
    takeOverTemporaries();
    if (!schedule.due(next.nextStep())) {
      return;
    }
    if (inFlight != null && !inFlight.isDone()) {
      LOG.debug("Periodic checkpoint due at step {} waits: the previous one is still being written", next.nextStep());
      return;
    }
    long start = ticker.nanos();
    long step = next.nextStep() - 1;
    if (!coordinator.awaitStepComplete(step, timeout)) {
      LOG.warn("Periodic checkpoint skipped: not every worker reported step {} within {}", step, timeout);
      return;
    }
    Optional<JobPosition> at = coordinator.position();
    if (at.isEmpty() || at.get().step() != next.nextStep() || at.get().samplesSeen() != next.batchStart()) {
      LOG.warn("Periodic checkpoint skipped at step {}: the leader's job position {} disagrees with its loop's {}",
          next.nextStep(), at.map(m -> m.step() + "/" + m.samplesSeen()).orElse("(not leading)"), next);
      return;
    }
    CheckpointMeta cm = metaOf.at(at.get(), workers);
    byte[] state;
    try {
      state = Checkpoint.snapshot(model);
    } catch (java.io.IOException e) {
      LOG.warn("Periodic checkpoint skipped at step {}: {}", next.nextStep(), e.toString());
      return;
    }
    schedule.taken(next.nextStep());
    long blocked = ticker.nanos() - start;
    inFlight = writer.submit(() -> write(cm, state, blocked));
    // After the write, on its thread, but not part of it: a checkpoint due next waits only for a
    // write in flight, and a sweep listing the directory is none (a due step skipped for it was
    // a checkpoint lost).
    writer.execute(() -> removeStaleTemporaries(cm.leaderEpoch()));
  }

  /**
   * The first batch end of a leadership: what older epochs left goes now, not only after this
   * leadership's first write (which may be far off, or never come).
   */
  private void takeOverTemporaries() {
    long epoch = coordinator.leaderEpoch();
    if (epoch <= sweptEpoch) {
      return;
    }
    sweptEpoch = epoch;
    writer.execute(() -> removeStaleTemporaries(epoch));
  }

  /**
   * Removes the temporaries leaderships older than {@code epoch} left. Safe even after this one
   * was superseded in turn: an epoch older than one that was ever claimed is fenced for good.
   */
  private void removeStaleTemporaries(long epoch) {
    try {
      List<Path> removed = CheckpointDirectory.removeStaleTemporaries(conf, directory, new WriterEpoch(appId, epoch));
      if (!removed.isEmpty()) {
        LOG.info("Leader epoch {} removed {} temporaries older leaderships left in {}", epoch, removed.size(),
            directory);
      }
    } catch (Exception e) {
      // Garbage stays until the next pass; never a reason to fail a write or training.
      LOG.warn("Could not clear stale temporaries in {}: {}", directory, e.toString());
    }
  }

  private void write(CheckpointMeta cm, byte[] state, long blockedNanos) {
    long start = ticker.nanos();
    try {
      // Renamed into place only while this leadership is the newest: a superseded leader's
      // checkpoint never becomes one a recovery or a resubmission could take.
      Checkpoint c = Checkpoint.write(conf, directory, cm, state, appId, coordinator::stillLeading);
      // Complete and renamed: from now on consistent recovery may go back to it, a successor too
      // once the record names it (until then a successor goes back to the one before).
      coordinator.checkpointWritten(new CheckpointRef(c.path().toString(), cm.toPosition()));
      coordinator.awaitPublished(timeout);
      long written = ticker.nanos() - start;
      List<Path> deleted = CheckpointDirectory.prune(conf, directory, keep);
      LOG.info("Periodic checkpoint {} ({} bytes) written in {} ms; training waited {} ms for it; {} older deleted",
          c.path(), state.length, written / 1_000_000, blockedNanos / 1_000_000, deleted.size());
      listener.checkpointed(workerId, c.path().toString(), blockedNanos, written);
    } catch (Exception e) {
      // A lost checkpoint costs redone work after a failure, never the job: training goes on.
      LOG.warn("Periodic checkpoint at step {} into {} failed: {}", cm.nextStep(), directory, e.toString());
    }
  }

  /**
   * Waits for the write in flight, if any: a leader recovering from a failure registers it
   * before the survivors' order is decided, so they go back no further than needed.
   */
  void awaitWritten() {
    Future<?> f = inFlight;
    if (f == null) {
      return;
    }
    try {
      f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("Waiting for the periodic checkpoint in flight: {}", e.toString());
    }
  }

  /** Waits for the write in flight (so a leader that ends leaves it complete), then stops. */
  @Override
  public void close() {
    writer.shutdown();
    try {
      if (!writer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("A periodic checkpoint was still being written after {}; abandoning it", timeout);
        writer.shutdownNow();
      }
    } catch (InterruptedException e) {
      writer.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
