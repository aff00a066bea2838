package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.edl.job.InvalidInputException;
import org.edl.testing.HdfsCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Data sets read from a real HDFS (one MiniDFSCluster for the class), as the demo reads them. */
class DatasetLoaderHdfsTest {
  private static final String SPEC = "synthetic:samples=500,features=12,classes=3,seed=21";

  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  private final Configuration conf = HDFS.configuration();
  private final String root = HDFS.uri("/edl");

  private static void put(String path, byte[] content) throws IOException {
    FileSystem fs = HDFS.fileSystem();
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(content);
    }
  }

  @Test
  void aLibsvmFileOnHdfsLoadsAsTheDataSetItWasWrittenFrom() throws IOException {
    String path = root + "/train.libsvm";
    try (OutputStream out = HDFS.fileSystem().create(new org.apache.hadoop.fs.Path(path))) {
      SyntheticData.writeLibsvm(SPEC, out);
    }
    Dataset expected = SyntheticData.generate(SPEC);
    Dataset loaded = DatasetLoader.load(path, "auto", conf);
    assertArrayEquals(expected.features(), loaded.features());
    assertArrayEquals(expected.labels(), loaded.labels());
    assertEquals(new DatasetSummary(500, 12, 3), DatasetLoader.validate(path, "auto", conf));
  }

  @Test
  void aPathWithoutSchemeResolvesAgainstTheDefaultFileSystem() throws IOException {
    put(root + "/small.csv", "label,a\n2,1.5\n4,2.5\n".getBytes(StandardCharsets.UTF_8));
    Dataset d = DatasetLoader.load("/edl/small.csv", "auto", conf);
    assertArrayEquals(new float[] {1.5f, 2.5f}, d.features());
  }

  @Test
  void aMalformedLineOnHdfsNamesThePathTheLineAndTheField() throws IOException {
    String path = root + "/bad.libsvm";
    put(path, "1 1:0.5\n# comment\n-1 2:1 3:oops\n".getBytes(StandardCharsets.UTF_8));
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> DatasetLoader.validate(path, "auto", conf));
    assertEquals("data=" + path + ": line 3, field 3 ('3:oops'): feature value is not a number", e.getMessage());
  }

  @Test
  void aMissingHdfsPathDoesNotExist() {
    String path = root + "/missing.libsvm";
    assertEquals("data=" + path + ": does not exist",
        assertThrows(InvalidInputException.class, () -> DatasetLoader.load(path, "auto", conf)).getMessage());
  }
}
