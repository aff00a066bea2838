package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.testing.HdfsCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job's output on a real HDFS when its leader of epoch 1 paused after its leadership check
 * and before its renames, and epoch 2 wrote the output meanwhile: epoch 2's write removes epoch
 * 1's temporaries, so epoch 1's late renames find nothing and the output stays epoch 2's.
 */
class ModelOutputSupersededTest {
  private static final String APP = "application_9_39";
  private static final long WAIT_MS = 60_000;

  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  private final ExecutorService writers = Executors.newCachedThreadPool();
  private final Configuration conf = HDFS.configuration();

  @AfterEach
  void stopWriters() {
    writers.shutdownNow();
  }

  @Test
  void aFencedLeadersLateRenameNeverReplacesTheNewerLeadersOutput() throws Exception {
    String out = HDFS.uri("/user/edl/" + APP);
    AtomicLong newestEpoch = new AtomicLong(1);
    CountDownLatch checked = new CountDownLatch(1);
    CountDownLatch released = new CountDownLatch(1);
    byte[] stale = ModelOutputStates.bytes(1 << 16, 1);
    Future<ModelOutput.Written> late = writers.submit(() -> ModelOutput.write(out, ModelOutputStates.of(stale),
        metrics(1), conf, APP, () -> {
          boolean leading = newestEpoch.get() == 1;
          checked.countDown();
          await(released);
          return leading;
        }));
    await(checked);

    newestEpoch.set(2);
    byte[] model = ModelOutputStates.bytes(1 << 16, 2);
    ModelOutput.write(out, ModelOutputStates.of(model), metrics(2), conf, APP, () -> newestEpoch.get() == 2);
    assertEquals(List.of(), temporaries(out), "epoch 1's temporaries went before epoch 2's renames");

    released.countDown();
    ExecutionException e = assertThrows(ExecutionException.class, () -> late.get(WAIT_MS, TimeUnit.MILLISECONDS));
    assertInstanceOf(ModelOutput.Superseded.class, e.getCause());

    assertEquals(2, ModelOutput.readMetrics(conf, out).leaderEpoch());
    assertEquals(Optional.empty(), ModelOutput.verify(conf, out, 50));
    try (InputStream in = HDFS.fileSystem().open(new Path(out, ModelOutput.MODEL_FILE))) {
      assertArrayEquals(model, in.readAllBytes());
    }
    assertEquals(List.of(), temporaries(out));
  }

  @Test
  void aLeaderWhoseTemporariesAreGoneLeavesTheOutputAsItIs() throws Exception {
    String out = HDFS.uri("/user/edl/" + APP + "-gone");
    byte[] first = ModelOutputStates.bytes(4096, 3);
    ModelOutput.write(out, ModelOutputStates.of(first), metrics(2), conf, APP, () -> true);
    // A newer leadership's sweep between this writer's check and its renames.
    ModelOutput.State late = ModelOutputStates.of(ModelOutputStates.bytes(4096, 4));
    ModelOutput.Superseded s = assertThrows(ModelOutput.Superseded.class,
        () -> ModelOutput.write(out, late, metrics(1), conf, APP, () -> {
          removeTemporaries(out);
          return true;
        }));
    assertTrue(s.getMessage().contains("left as it is"), s.getMessage());
    assertEquals(2, ModelOutput.readMetrics(conf, out).leaderEpoch());
    assertEquals(Optional.empty(), ModelOutput.verify(conf, out, 50));
  }

  private void removeTemporaries(String out) {
    try {
      FileSystem fs = HDFS.fileSystem();
      for (String name : temporaries(out)) {
        fs.delete(new Path(out, name), false);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private List<String> temporaries(String out) throws IOException {
    return Arrays.stream(HDFS.fileSystem().listStatus(new Path(out))).map(FileStatus::getPath).map(Path::getName)
        .filter(n -> n.startsWith(".")).toList();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(WAIT_MS, TimeUnit.MILLISECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static ModelOutput.Metrics metrics(long leaderEpoch) {
    return ModelOutput.Metrics.of("mlp", 2, 50, 640, 2.3, 0.4, 100, 6.4, leaderEpoch);
  }
}
