package org.edl.worker.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.edl.testing.ForwardingModel;
import org.edl.testing.HdfsCluster;
import org.edl.job.BatchRule;

import org.edl.worker.model.Mlp;
import org.edl.worker.model.TrainableModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Checkpoints on a real HDFS (one MiniDFSCluster for the class), where production writes them. */
class CheckpointHdfsTest {
  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  private final Configuration conf = HDFS.configuration();
  private final String root = HDFS.uri("/edl/checkpoints");

  private static CheckpointMeta meta(Mlp m, long nextStep) {
    return new CheckpointMeta(nextStep, 0, List.of(0, 1), nextStep * 16, BatchRule.FIXED_GLOBAL, 16, 0.1,
        0.7, 3, m.name(), m.parameters().length, 500, 21, Instant.parse("2026-12-03T07:00:00Z"));
  }

  @Test
  void aCheckpointOnHdfsRestoresTheParametersAndNamesItsHdfsPath() throws IOException {
    Mlp saved = new Mlp(300, 70, 4, 1);
    Checkpoint written = Checkpoint.write(conf, root + "/job1", meta(saved, 64), saved);
    assertEquals("hdfs", written.path().toUri().getScheme());

    Checkpoint read = Checkpoint.read(conf, root + "/job1");
    assertEquals(meta(saved, 64), read.meta());
    Mlp restored = new Mlp(300, 70, 4, 2);
    read.restoreInto(restored);
    assertArrayEquals(saved.parameters(), restored.parameters());
  }

  @Test
  void aHalfWrittenCheckpointOnHdfsIsNotReadAsComplete() throws IOException {
    Mlp m = new Mlp(20, 8, 3, 1);
    String dir = root + "/job2";
    Checkpoint.write(conf, dir, meta(m, 10), m);
    // A writer that died after its files but before the marker and the rename.
    FileSystem fs = HDFS.fileSystem();
    org.apache.hadoop.fs.Path tmp = new org.apache.hadoop.fs.Path(dir, ".ckpt-00000000000000000030-dead.tmp");
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(tmp, Checkpoint.MODEL_FILE))) {
      out.write(new byte[100]);
    }
    assertEquals(10, Checkpoint.read(conf, dir).meta().nextStep());
    // The same files, renamed into place by hand without the marker: incomplete, and said so.
    org.apache.hadoop.fs.Path renamed = new org.apache.hadoop.fs.Path(dir, Checkpoint.nameFor(30));
    assertTrue(fs.rename(tmp, renamed));
    IOException e = assertThrows(IOException.class, () -> Checkpoint.read(conf, dir));
    assertTrue(e.getMessage().contains(renamed.toUri().getPath()) && e.getMessage().contains("incomplete"),
        e.getMessage());
  }

  @Test
  void aWriteWhoseFileIsDeletedUnderItFailsWithTheFileSystemsOwnError() throws IOException {
    Mlp m = new Mlp(20, 8, 3, 1);
    String dir = root + "/job3";
    FileSystem fs = HDFS.fileSystem();
    // What a newer leader's removal of a fenced writer's temporary does to that writer.
    TrainableModel deletedMidWrite = new DeletedMidWrite(m, () -> {
      for (FileStatus s : fs.listStatus(new org.apache.hadoop.fs.Path(dir))) {
        fs.delete(s.getPath(), true);
      }
    });
    // An HDFS stream throws its write's exception again from close: not "Self-suppression not permitted".
    IOException e = assertThrows(IOException.class, () -> Checkpoint.write(conf, dir, meta(m, 40), deletedMidWrite));
    assertTrue(e.getMessage().contains(Checkpoint.MODEL_FILE), e.getMessage());
    assertEquals(List.of(), CheckpointDirectory.list(conf, dir));
  }

  /** A model whose state is written only after {@code before} ran. */
  private static final class DeletedMidWrite extends ForwardingModel {
    private final IoAction before;

    DeletedMidWrite(TrainableModel model, IoAction before) {
      super(model);
      this.before = before;
    }

    @Override
    public void writeState(DataOutputStream out) throws IOException {
      before.run();
      model.writeState(out);
    }
  }

  private interface IoAction {
    void run() throws IOException;
  }
}
