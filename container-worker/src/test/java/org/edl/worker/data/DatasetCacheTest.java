package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.testing.HdfsCluster;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The parsed binary copy of a data set on a real HDFS (one MiniDFSCluster for the class). */
class DatasetCacheTest {
  private static final String SPEC = "synthetic:samples=300,features=9,classes=4,seed=3";

  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  private final Configuration conf = HDFS.configuration();
  private FileSystem fs;
  private String dir;
  private String source;
  private DatasetCache cache;

  @BeforeEach
  void writeSource(TestInfo test) throws IOException {
    fs = HDFS.fileSystem();
    dir = HDFS.uri("/cache-" + test.getTestMethod().orElseThrow().getName());
    source = dir + "/train.libsvm";
    try (OutputStream out = fs.create(new Path(source))) {
      SyntheticData.writeLibsvm(SPEC, out);
    }
    cache = new DatasetCache(new Path(dir, "copies"), conf);
  }

  private DatasetCache.Source sourceNow() throws IOException {
    return DatasetCache.Source.of(fs.getFileStatus(new Path(source)), DataFormat.LIBSVM);
  }

  @Test
  void aCopyReadsBackAsTheParsedDataSet() throws IOException {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    assertTrue(cache.write(sourceNow(), parsed));
    Dataset copy = cache.read(sourceNow()).orElseThrow();
    assertArrayEquals(parsed.features(), copy.features());
    assertArrayEquals(parsed.labels(), copy.labels());
    assertEquals(parsed.featureCount(), copy.featureCount());
    assertEquals(parsed.classCount(), copy.classCount());
    assertFalse(cache.write(sourceNow(), parsed), "an existing copy is not written again");
  }

  @Test
  void theLoaderWritesTheCopyAfterParsingAndTheNextLoadReadsIt() throws Exception {
    Dataset parsed = DatasetLoader.load(source, "auto", Optional.of(cache), conf);
    DatasetCache.Source key = sourceNow();
    Path copy = cache.pathOf(key);
    org.edl.testing.Await.until("the background writer's copy " + copy, () -> fs.exists(copy));
    // Text that cannot be parsed, of the same length and time: a load that succeeds read the copy.
    byte[] garbage = new byte[(int) key.length()];
    java.util.Arrays.fill(garbage, (byte) 'x');
    try (FSDataOutputStream out = fs.create(new Path(source), true)) {
      out.write(garbage);
    }
    fs.setTimes(new Path(source), key.modified(), -1);
    assertEquals(key, sourceNow());
    Dataset fromCopy = DatasetLoader.load(source, "auto", Optional.of(cache), conf);
    assertArrayEquals(parsed.features(), fromCopy.features());
    assertArrayEquals(parsed.labels(), fromCopy.labels());
  }

  @Test
  void aChangedSourceIsParsedAgainNotReadFromTheOldCopy() throws Exception {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    cache.write(sourceNow(), parsed);
    try (OutputStream out = fs.create(new Path(source), true)) {
      SyntheticData.writeLibsvm("synthetic:samples=50,features=9,classes=4,seed=8", out);
    }
    assertTrue(cache.read(sourceNow()).isEmpty());
    assertEquals(50, DatasetLoader.load(source, "auto", Optional.of(cache), conf).size());
  }

  @Test
  void aDamagedCopyIsIgnored() throws IOException {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    cache.write(sourceNow(), parsed);
    Path copy = cache.pathOf(sourceNow());
    byte[] bytes;
    try (var in = fs.open(copy)) {
      bytes = in.readAllBytes();
    }
    bytes[bytes.length / 2] ^= 0x40;
    try (FSDataOutputStream out = fs.create(copy, true)) {
      out.write(bytes);
    }
    assertTrue(cache.read(sourceNow()).isEmpty(), "a flipped bit fails the checksum");
    try (FSDataOutputStream out = fs.create(copy, true)) {
      out.write(bytes, 0, bytes.length - 9);
    }
    assertTrue(cache.read(sourceNow()).isEmpty(), "a torn copy is ignored");
  }

  @Test
  void ofWorkersParsingTogetherOneWritesTheCopy() throws Exception {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    DatasetCache.Source key = sourceNow();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<Boolean>> writers = IntStream.range(0, 4)
          .<Callable<Boolean>>mapToObj(i -> () -> new DatasetCache(new Path(dir, "copies"), conf).write(key, parsed))
          .toList();
      long wrote = 0;
      for (Future<Boolean> f : pool.invokeAll(writers)) {
        wrote += f.get() ? 1 : 0;
      }
      assertEquals(1, wrote, "HDFS renames onto no existing file, so one writer wins");
      FileStatus[] left = fs.listStatus(new Path(dir, "copies"));
      assertEquals(1, left.length, "one copy and no temporary file: " + List.of(left));
      assertArrayEquals(parsed.features(), cache.read(key).orElseThrow().features());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aTemporaryCopyADeadWriterLeftIsReplacedOnceAbandoned() throws IOException {
    Dataset parsed = DatasetLoader.load(source, "auto", conf);
    DatasetCache.Source key = sourceNow();
    Path tmp = new Path(new Path(dir, "copies"), "." + cache.pathOf(key).getName() + ".writing");
    fs.create(tmp).close();
    assertFalse(cache.write(key, parsed), "a fresh temporary file means another writer is at it");
    fs.setTimes(tmp, System.currentTimeMillis() - DatasetCache.ABANDONED_MS - 1000, -1);
    assertTrue(cache.write(key, parsed));
    assertFalse(fs.exists(tmp));
  }
}
