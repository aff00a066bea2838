package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.testing.HdfsCluster;
import org.edl.job.BatchRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Found on bin/edl cluster: {@code --data file:///tmp/x.libsvm} was refused, "Wrong FS: file://localhost:35283/...". */
class UserPathsTest {
  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  @Test
  void aPathWithAnotherSchemeKeepsItsOwnFileSystem() throws Exception {
    FileSystem hdfs = HDFS.fileSystem();
    assertEquals("file:/tmp/x.libsvm", UserPaths.qualify("file:///tmp/x.libsvm", hdfs, hdfs.getConf()).toString());
  }

  @Test
  void aPathWithoutSchemeBelongsToTheDefaultFileSystemAndItsWorkingDirectory() throws Exception {
    FileSystem hdfs = HDFS.fileSystem();
    assertEquals(hdfs.getUri() + "/data/x.libsvm", UserPaths.qualify("/data/x.libsvm", hdfs, hdfs.getConf()).toString());
    assertEquals(hdfs.makeQualified(new org.apache.hadoop.fs.Path(hdfs.getWorkingDirectory(), "x.libsvm")).toString(),
        UserPaths.qualify("x.libsvm", hdfs, hdfs.getConf()).toString());
  }

  @Test
  void anUnknownSchemeIsNamed() throws Exception {
    FileSystem hdfs = HDFS.fileSystem();
    assertThrows(UnsupportedFileSystemException.class, () -> UserPaths.qualify("nope:///x", hdfs, new Configuration()));
  }

  @Test
  void theJobsDataIsQualifiedByItsOwnFileSystem() throws Exception {
    FileSystem hdfs = HDFS.fileSystem();
    JobSpec spec = spec("file:///tmp/x.libsvm");
    assertEquals("file:/tmp/x.libsvm", JobSubmitter.qualifyData(spec, hdfs, hdfs.getConf()).data().source());
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> JobSubmitter.qualifyData(spec("nope:///x"), hdfs, hdfs.getConf()));
    assertEquals(true, e.getMessage().contains("data") && e.getMessage().contains("nope:///x"), e.getMessage());
  }

  private static JobSpec spec(String data) {
    return JobSpec.builder().name("paths").model("softmax").data(data).format("libsvm").workers(1).minWorkers(1)
        .maxWorkers(1).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(4)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu").build();
  }
}
