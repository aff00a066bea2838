package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.job.JobSpec;
import org.edl.job.WriterEpoch;
import org.edl.testing.ForwardingModel;
import org.edl.testing.HdfsCluster;
import org.edl.job.BatchRule;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.edl.worker.checkpoint.CheckpointCatalog;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.checkpoint.CheckpointSchedule;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.coord.JobRecord;
import org.edl.worker.coord.LeaderStore;
import org.edl.worker.coord.Ticker;
import org.edl.worker.coord.rpc.CoordinatorService;
import org.edl.worker.model.Mlp;
import org.edl.worker.model.TrainableModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 38 on a real HDFS: the leader of epoch 1 stops in the middle of periodic checkpoints (one
 * write stopped inside its model file, as a kill leaves it; one stopped after its commit check and
 * before its rename, as a long pause leaves it) and epoch 2 takes over while its own checkpoint is
 * being written. The new leader's first pass removes epoch 1's temporaries and keeps its own; epoch
 * 1's writes, let go afterwards, put nothing in place; epoch 2's is committed.
 */
class StaleCheckpointTemporariesTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String APP = "application_9_38";

  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  private final ExecutorService writers = Executors.newCachedThreadPool();
  private final Configuration conf = HDFS.configuration();
  private final String output = HDFS.uri("/user/edl/" + APP);
  private final String directory = PeriodicCheckpoints.directoryUnder(output);
  /** The newest leader epoch of the application, as ZooKeeper's epoch node would hold it. */
  private final AtomicLong newestEpoch = new AtomicLong();

  @AfterEach
  void stopWriters() {
    writers.shutdownNow();
  }

  @Test
  void theNextLeadersPassRemovesWhatTheFencedLeaderLeftAndKeepsItsOwnWriteInProgress() throws Exception {
    FileSystem fs = HDFS.fileSystem();
    Mlp model = new Mlp(300, 70, 4, 1);
    newestEpoch.set(1);
    // Epoch 1's write stopped inside model.bin: a leader killed (or paused) mid-write.
    Paused killed = new Paused(model);
    Future<Checkpoint> killedWrite = writers.submit(() -> Checkpoint.write(conf, directory, meta(model, 30, 1), killed,
        APP, () -> newestEpoch.get() == 1));
    killed.awaitStopped();
    // Epoch 1's write stopped after its commit check said yes and before its rename.
    PausedAfterCheck late = new PausedAfterCheck(() -> newestEpoch.get() == 1);
    Future<Checkpoint> lateWrite = writers.submit(() -> Checkpoint.write(conf, directory, meta(model, 36, 1),
        Checkpoint.snapshot(model), APP, late));
    late.awaitChecked();

    CoordinatorService successor = leader(2);
    try {
      // Epoch 2's own checkpoint, in the middle of its model file when the pass runs.
      Paused current = new Paused(model);
      Future<Checkpoint> currentWrite = writers.submit(() -> Checkpoint.write(conf, directory, meta(model, 42, 2),
          current, APP, successor.leadership()::stillLeading));
      current.awaitStopped();
      List<String> before = temporaries(fs);
      assertEquals(3, before.size(), "two of epoch 1, one of epoch 2: " + before);

      PeriodicCheckpoints periodic = new PeriodicCheckpoints(conf, APP, output, 3,
          new CheckpointSchedule(0, Duration.ZERO, Ticker.SYSTEM), successor.leadership(), model,
          (at, workers) -> {
            throw new AssertionError("no periodic checkpoint is due");
          }, Ticker.SYSTEM, WAIT, WorkerListener.NONE, "container_" + APP + "_02");
      periodic.afterStep(new ModelBroadcast.Position(40, 40 * 8), 2);
      periodic.close();

      List<String> after = temporaries(fs);
      assertEquals(1, after.size(), "only epoch 2's write in progress is left: " + after);
      assertTrue(after.get(0).contains("." + APP + ".e2."), after.get(0));
      assertEquals(List.of(), CheckpointCatalog.list(conf, new Path(output)), "a temporary is no checkpoint");

      // Epoch 1's writes go on: neither becomes a checkpoint, and neither leaves anything behind.
      killed.release();
      ExecutionException k = assertThrows(ExecutionException.class, () -> result(killedWrite));
      assertInstanceOf(IOException.class, k.getCause(), () -> trace(k.getCause()));
      late.release();
      ExecutionException l = assertThrows(ExecutionException.class, () -> result(lateWrite));
      assertTrue(l.getCause().getMessage().contains("not committed"), l.getCause().getMessage());

      current.release();
      Checkpoint committed = result(currentWrite);
      Mlp restored = new Mlp(300, 70, 4, 2);
      committed.restoreInto(restored);
      assertTrue(Arrays.equals(model.parameters(), restored.parameters()));
      assertEquals(List.of(Checkpoint.nameFor(42)), names(CheckpointDirectory.list(conf, directory)));
      assertEquals(List.of(), temporaries(fs));
      List<CheckpointCatalog.Entry> listed = CheckpointCatalog.list(conf, new Path(output));
      assertEquals(List.of(committed.path()), listed.stream().map(CheckpointCatalog.Entry::path).toList());
      assertEquals(2, listed.get(0).meta().orElseThrow().leaderEpoch());
    } finally {
      successor.leadership().retire();
    }
  }

  @Test
  void aPassKeepsTheTemporariesOfANewerLeadershipThanItsOwn() throws Exception {
    FileSystem fs = HDFS.fileSystem();
    Mlp model = new Mlp(20, 8, 3, 1);
    String dir = HDFS.uri("/user/edl/newer-leadership");
    newestEpoch.set(5);
    Paused newer = new Paused(model);
    Future<Checkpoint> newerWrite = writers.submit(() -> Checkpoint.write(conf, dir, meta(model, 12, 5), newer, APP,
        () -> newestEpoch.get() == 5));
    newer.awaitStopped();

    // A paused leader of epoch 4 wakes up and runs its pass: it must not touch epoch 5's write.
    assertEquals(List.of(), CheckpointDirectory.removeStaleTemporaries(conf, dir, new WriterEpoch(APP, 4)));
    newer.release();
    assertEquals(Checkpoint.nameFor(12), result(newerWrite).path().getName());
  }

  private static String trace(Throwable t) {
    java.io.StringWriter w = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(w));
    return w.toString();
  }

  private static <T> T result(Future<T> f) throws Exception {
    return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private List<String> temporaries(FileSystem fs) throws IOException {
    return Arrays.stream(fs.listStatus(new Path(directory))).map(FileStatus::getPath).map(Path::getName)
        .filter(n -> n.startsWith(".")).sorted().toList();
  }

  private static List<String> names(List<Path> paths) {
    return paths.stream().map(Path::getName).toList();
  }

  private static CheckpointMeta meta(TrainableModel m, long nextStep, long leaderEpoch) {
    return new CheckpointMeta(nextStep, 0, List.of(), nextStep * 8, BatchRule.FIXED_PER_WORKER, 4, 0.05, 0.9, 2,
        m.name(), m.parameters().length, 400, 3, Instant.parse("2026-12-07T08:00:00Z"), leaderEpoch);
  }

  /** A coordinator leading at {@code epoch}, which from now on is the application's newest. */
  private CoordinatorService leader(long epoch) {
    JobSpec spec = JobSpec.builder().name("stale-temporaries").model("mlp").data("synthetic:samples=400,features=300,"
        + "classes=4,seed=5").format("auto").workers(2).minWorkers(1).maxWorkers(2).gpusPerWorker(0)
        .workerMemoryMb(512).workerVcores(1).steps(100).batchSize(4).batchRule(BatchRule.FIXED_PER_WORKER)
        .learningRate(0.05).hidden(70).seed(3).backend("cpu").output(output).checkpoints(6, 0, 3).build();
    CoordinatorService c = new CoordinatorService(spec, Ticker.SYSTEM);
    c.leadership().store(new LeaderStore() {
      @Override
      public long claimEpoch() {
        newestEpoch.set(epoch);
        return epoch;
      }

      @Override
      public Optional<JobRecord> read() {
        return Optional.empty();
      }

      @Override
      public void publish(JobRecord record, java.util.function.Consumer<String> superseded) {
      }

      @Override
      public void awaitPublished(Duration timeout) {
      }

      @Override
      public boolean stillCurrent(long asked) {
        return asked == newestEpoch.get();
      }
    });
    assertTrue(c.leadership().lead(), "leads a fresh job at epoch " + epoch);
    assertEquals(epoch, c.leadership().leaderEpoch());
    return c;
  }

  /** The model, whose state stops after its first bytes until released: a writer stopped mid-file. */
  private static final class Paused extends ForwardingModel {
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    Paused(TrainableModel model) {
      super(model);
    }

    void awaitStopped() throws InterruptedException {
      assertTrue(stopped.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the write did not start");
    }

    void release() {
      released.countDown();
    }

    @Override
    public void writeState(DataOutputStream out) throws IOException {
      byte[] state = Checkpoint.snapshot(model);
      int half = state.length / 2;
      out.write(state, 0, half);
      out.flush();
      stopped.countDown();
      try {
        if (!released.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IOException("never released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      out.write(state, half, state.length - half);
    }
  }

  /**
   * The writer's leadership check, answered once and then held until released: a leader whose
   * check passed and which then paused (a long GC, SIGSTOP) before its rename. Asked again, it
   * answers as the check would then.
   */
  private static final class PausedAfterCheck implements Checkpoint.Commit {
    private final java.util.function.BooleanSupplier leading;
    private final AtomicInteger asked = new AtomicInteger();
    private final CountDownLatch checked = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    PausedAfterCheck(java.util.function.BooleanSupplier leading) {
      this.leading = leading;
    }

    void awaitChecked() throws InterruptedException {
      assertTrue(checked.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the write did not reach its check");
    }

    void release() {
      released.countDown();
    }

    @Override
    public boolean allowed() {
      boolean answer = leading.getAsBoolean();
      if (asked.getAndIncrement() > 0) {
        return answer;
      }
      checked.countDown();
      try {
        released.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return answer;
    }
  }
}
