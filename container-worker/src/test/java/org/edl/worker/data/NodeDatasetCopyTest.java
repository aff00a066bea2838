package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.edl.testing.Await;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's own copy of the job's data set, on local disk as YARN's LOCAL_DIRS gives it. */
class NodeDatasetCopyTest {
  private static final String SPEC = "synthetic:samples=200,features=7,classes=3,seed=5";

  @TempDir
  Path work;
  private final Configuration conf = new Configuration();
  private String source;
  private NodeDatasetCopy node;

  @BeforeEach
  void writeSource() throws IOException {
    Path file = work.resolve("train.libsvm");
    try (OutputStream out = Files.newOutputStream(file)) {
      SyntheticData.writeLibsvm(SPEC, out);
    }
    source = file.toUri().toString();
    node = NodeDatasetCopy.fromEnvironment(Map.of(NodeDatasetCopy.LOCAL_DIRS,
        work.resolve("app-dir-1") + "," + work.resolve("app-dir-2"))).orElseThrow();
  }

  private Dataset load() throws IOException {
    return DatasetLoader.load(source, "auto", Optional.empty(), Optional.of(node), conf);
  }

  @Test
  void theFirstLoadWritesThisNodesCopyAndALaterOneReadsItWithoutTheSource() throws Exception {
    Dataset parsed = load();
    Path copy = node.pathOf(source, DataFormat.LIBSVM);
    assertTrue(copy.startsWith(work.resolve("app-dir-1")), "in the first of LOCAL_DIRS: " + copy);
    Await.until("this node's copy " + copy, () -> Files.exists(copy));
    // Gone from its file system: a load that still succeeds never opened it.
    Files.delete(Path.of(java.net.URI.create(source)));
    Dataset local = load();
    assertEquals(parsed.size(), local.size());
    assertArrayEquals(parsed.features(), local.features());
    assertArrayEquals(parsed.labels(), local.labels());
  }

  @Test
  void aDamagedOrTornCopyIsIgnoredAndTheSourceReadAgain() throws Exception {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    assertTrue(node.write(source, DataFormat.LIBSVM, parsed));
    Path copy = node.pathOf(source, DataFormat.LIBSVM);
    byte[] bytes = Files.readAllBytes(copy);
    bytes[bytes.length / 2] ^= 0x40;
    Files.write(copy, bytes);
    assertTrue(node.read(source, DataFormat.LIBSVM).isEmpty(), "a flipped bit fails the checksum");
    Files.write(copy, java.util.Arrays.copyOf(bytes, bytes.length - 9));
    assertTrue(node.read(source, DataFormat.LIBSVM).isEmpty(), "a torn copy is ignored");
    assertArrayEquals(parsed.features(), load().features());
  }

  @Test
  void aCopyAnotherWorkerIsWritingIsNotWrittenTwice() throws Exception {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    Path copy = node.pathOf(source, DataFormat.LIBSVM);
    Files.createDirectories(copy.getParent());
    Files.createFile(copy.resolveSibling("." + copy.getFileName() + ".writing"));
    assertFalse(node.write(source, DataFormat.LIBSVM, parsed));
    assertFalse(Files.exists(copy));
  }

  @Test
  void aCopyOfAnotherFormatOrSourceIsNotTakenForThisOne() throws Exception {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    assertTrue(node.write(source, DataFormat.LIBSVM, parsed));
    assertTrue(node.read(source, DataFormat.CSV).isEmpty());
    assertTrue(node.read(source + ".other", DataFormat.LIBSVM).isEmpty());
    assertTrue(node.read(source, DataFormat.LIBSVM).isPresent());
  }

  @Test
  void outsideAYarnContainerThereIsNoNodeCopy() {
    assertTrue(NodeDatasetCopy.fromEnvironment(Map.of()).isEmpty());
    assertTrue(NodeDatasetCopy.fromEnvironment(Map.of(NodeDatasetCopy.LOCAL_DIRS, " ")).isEmpty());
  }
}
