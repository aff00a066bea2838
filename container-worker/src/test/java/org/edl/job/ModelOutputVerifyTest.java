package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.testing.HdfsCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The AM's check of a job's output before the job may succeed. On HDFS by the model file's own
 * checksum, which the datanodes compute from their block checksums, so that the check does not
 * read the whole model back (a script's model can be gigabytes); on a file system that keeps no
 * such checksum (the local one) by reading it and comparing its CRC-32.
 */
class ModelOutputVerifyTest {
  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  private final Configuration conf = HDFS.configuration();

  private static ModelOutput.Metrics metrics(long steps) {
    return ModelOutput.Metrics.of("mlp", 2, steps, 640, 2.3, 0.4, 100, 6.4, 1);
  }

  @SuppressWarnings("deprecation")
  private long hdfsBytesRead() throws IOException {
    FileSystem fs = HDFS.fileSystem();
    return FileSystem.getStatistics(fs.getUri().getScheme(), fs.getClass()).getBytesRead();
  }

  @Test
  void theModelIsVerifiedByItsFileChecksumWithoutBeingReadBack() throws Exception {
    byte[] model = ModelOutputStates.bytes(4 << 20, 1);
    String out = HDFS.uri("/edl/out/a");
    ModelOutput.write(out, ModelOutputStates.of(model), metrics(50), conf);
    ModelOutput.Metrics written = ModelOutput.readMetrics(conf, out);
    assertNotNull(written.modelFileChecksum(), "HDFS keeps a checksum of the model file");
    assertEquals(model.length, written.modelBytes());

    long before = hdfsBytesRead();
    assertEquals(Optional.empty(), ModelOutput.verify(conf, out, 50));
    long read = hdfsBytesRead() - before;
    assertTrue(read < model.length / 16, "read " + read + " bytes to verify a model of " + model.length);
  }

  @Test
  void aModelOfTheSameLengthButOtherBytesDoesNotVerify() throws Exception {
    String out = HDFS.uri("/edl/out/b");
    ModelOutput.write(out, ModelOutputStates.of(ModelOutputStates.bytes(1 << 20, 2)), metrics(50), conf);
    // Another writer's model in its place, as long as the first.
    try (FSDataOutputStream o = HDFS.fileSystem().create(new Path(out, ModelOutput.MODEL_FILE), true)) {
      o.write(ModelOutputStates.bytes(1 << 20, 3));
    }
    Optional<String> problem = ModelOutput.verify(conf, out, 50);
    assertTrue(problem.isPresent() && problem.get().contains("is not the model") && problem.get().contains("checksum"),
        problem.toString());
  }

  @Test
  void onTheLocalFileSystemTheModelIsReadAndItsCrcCompared(@TempDir java.nio.file.Path dir) throws Exception {
    String out = dir.toUri().toString();
    Configuration local = new Configuration();
    ModelOutput.write(out, ModelOutputStates.of(ModelOutputStates.bytes(1 << 16, 4)), metrics(50), local);
    assertEquals(null, ModelOutput.readMetrics(local, out).modelFileChecksum(), "the local file system keeps none");
    assertEquals(Optional.empty(), ModelOutput.verify(local, out, 50));
    try (FSDataOutputStream o = FileSystem.getLocal(local).create(new Path(out, ModelOutput.MODEL_FILE), true)) {
      o.write(ModelOutputStates.bytes(1 << 16, 5));
    }
    Optional<String> problem = ModelOutput.verify(local, out, 50);
    assertTrue(problem.isPresent() && problem.get().contains("crc32"), problem.toString());
  }
}
