package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.BatchRule;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.model.SoftmaxRegression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a stop-resume restarts from, over real checkpoints on the local file system. */
class CheckpointRestartSourceTest {
  private static final Configuration CONF = new Configuration();

  @TempDir
  Path dir;

  private String root() {
    return dir.resolve("checkpoints").toUri().toString();
  }

  private static void write(String directory, long nextStep) throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint.write(CONF, directory, new CheckpointMeta(nextStep, 2, List.of(0, 1), nextStep * 16,
        BatchRule.FIXED_PER_WORKER, 8, 0.05, 1.0, 2, m.name(), m.parameters().length, 64, 1,
        Instant.parse("2026-12-05T07:00:00Z").plusSeconds(nextStep)), m);
  }

  @Test
  void theStopsOwnCheckpointWhenItsLeaderWroteIt() throws IOException {
    write(root() + "/periodic", 500);
    write(root() + "/restart-1", 640);
    CheckpointRestartSource source = new CheckpointRestartSource(CONF, root());
    assertEquals(Optional.of(root() + "/restart-1"), source.checkpointFor(root() + "/restart-1"));
  }

  @Test
  void theJobsNewestCommittedCheckpointWhenTheStopLeftNone() throws IOException {
    write(root() + "/periodic", 500);
    write(root() + "/periodic", 1000);
    write(root() + "/restart-1", 640);
    // The failed leader's write in progress: hidden, never renamed into place.
    Files.createDirectories(Path.of(java.net.URI.create(root())).resolve("restart-2/.ckpt-00000000000000001200-x.tmp"));
    CheckpointRestartSource source = new CheckpointRestartSource(CONF, root());

    Optional<String> from = source.checkpointFor(root() + "/restart-2");
    assertEquals(Checkpoint.nameFor(1000), new org.apache.hadoop.fs.Path(from.orElseThrow()).getName());
    assertEquals(Optional.empty(), new CheckpointRestartSource(CONF, dir.resolve("none").toUri().toString())
        .checkpointFor(dir.resolve("none/restart-1").toUri().toString()));
  }
}
