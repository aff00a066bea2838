package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader on the local file system; {@link DatasetLoaderHdfsTest} does the same over HDFS. */
class DatasetLoaderTest {
  private final Configuration conf = new Configuration(false);

  @TempDir
  Path dir;

  @Test
  void syntheticSpecsAreGeneratedNotOpened() throws IOException {
    Dataset d = DatasetLoader.load("synthetic:samples=40,features=3,classes=2,seed=1", "auto", conf);
    assertArrayEquals(SyntheticData.generate("synthetic:samples=40,features=3,classes=2,seed=1").features(),
        d.features());
    assertEquals(new DatasetSummary(40, 3, 2), DatasetLoader.validate("synthetic:samples=40,features=3,classes=2",
        "auto", conf));
  }

  @Test
  void aCsvFileIsReadByPathAndByFileUri() throws IOException {
    Path file = dir.resolve("train.csv");
    Files.writeString(file, "y,a,b\n1,2,3\n0,4,5\n");
    Dataset byPath = DatasetLoader.load(file.toString(), "auto", conf);
    Dataset byUri = DatasetLoader.load(file.toUri().toString(), "csv", conf);
    assertArrayEquals(new float[] {2, 3, 4, 5}, byPath.features());
    assertArrayEquals(new int[] {1, 0}, byUri.labels());
    assertEquals(new DatasetSummary(2, 2, 2), DatasetLoader.validate(file.toString(), "auto", conf));
  }

  @Test
  void aLibsvmFileWithAnotherExtensionNeedsTheFormat() throws IOException {
    Path file = dir.resolve("train.data");
    try (OutputStream out = Files.newOutputStream(file)) {
      SyntheticData.writeLibsvm("synthetic:samples=30,features=4,classes=3", out);
    }
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> DatasetLoader.load(file.toString(), "auto", conf));
    assertEquals("data", e.field());
    Dataset d = DatasetLoader.load(file.toString(), "libsvm", conf);
    assertEquals(30, d.size());
  }

  @Test
  void aMissingPathOrADirectoryIsNamed() {
    String missing = dir.resolve("nope.libsvm").toString();
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> DatasetLoader.load(missing, "auto", conf));
    assertEquals("data=" + missing + ": does not exist", e.getMessage());
    assertEquals("data=" + missing + ": does not exist",
        assertThrows(InvalidInputException.class, () -> DatasetLoader.validate(missing, "auto", conf)).getMessage());
    String folder = dir.resolve("d.csv").toString();
    assertEquals(true, dir.resolve("d.csv").toFile().mkdir());
    assertEquals("data=" + folder + ": is a directory; give a file",
        assertThrows(InvalidInputException.class, () -> DatasetLoader.load(folder, "auto", conf)).getMessage());
  }

  @Test
  void anUnknownSchemeIsNamed() {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> DatasetLoader.load("nosuchfs://host/train.csv", "auto", conf));
    assertEquals("data=nosuchfs://host/train.csv: no file system for scheme 'nosuchfs'", e.getMessage());
  }

  @Test
  void aBadLineIsReportedWithTheFileName() throws IOException {
    Path file = dir.resolve("bad.libsvm");
    Files.write(file, "1 1:2\n1 1:x\n".getBytes(StandardCharsets.UTF_8));
    assertEquals("data=" + file + ": line 2, field 2 ('1:x'): feature value is not a number",
        assertThrows(InvalidInputException.class, () -> DatasetLoader.validate(file.toString(), "auto", conf))
            .getMessage());
  }
}
