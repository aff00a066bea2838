package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.job.StaleTemporaries.Verdict;
import org.edl.testing.HdfsCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Which temporaries a leadership removes, by the writer their names carry, and the sweep on a real HDFS. */
class StaleTemporariesTest {
  private static final String APP = "application_7_3";
  private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
  private static final Duration OLD = StaleTemporaries.UNATTRIBUTED_KEPT.plusMinutes(1);

  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  private static TemporaryName named(String target, String app, long epoch) {
    return TemporaryName.parse(TemporaryName.of(target, new WriterEpoch(app, epoch))).orElseThrow();
  }

  @Test
  void aNameCarriesItsTargetAndWriterAndOlderBuildsNamesParseWithoutOne() {
    String name = TemporaryName.of("ckpt-00000000000000000120", new WriterEpoch(APP, 4));
    assertTrue(name.startsWith(".ckpt-00000000000000000120." + APP + ".e4.") && name.endsWith(".tmp"), name);
    assertEquals(new TemporaryName("ckpt-00000000000000000120", Optional.of(new WriterEpoch(APP, 4))),
        TemporaryName.parse(name).orElseThrow());
    assertEquals(new TemporaryName("model.bin", Optional.of(new WriterEpoch(APP, 12))), named("model.bin", APP, 12));

    String uuid = UUID.randomUUID().toString();
    assertEquals(new TemporaryName("ckpt-00000000000000000030", Optional.empty()),
        TemporaryName.parse(".ckpt-00000000000000000030-" + uuid + ".tmp").orElseThrow());
    assertEquals(new TemporaryName("metrics.json", Optional.empty()),
        TemporaryName.parse(".metrics.json." + uuid + ".tmp").orElseThrow());
    for (String other : List.of(".model.bin.crc", ".ckpt-00000000000000000030-x.tmp", "ckpt-00000000000000000030",
        "." + uuid + ".tmp", ".model.bin." + uuid + ".tmp.crc")) {
      assertEquals(Optional.empty(), TemporaryName.parse(other), other);
    }
    assertThrows(IllegalArgumentException.class, () -> new WriterEpoch("app.1", 1));
  }

  @Test
  void anOlderEpochOfTheSameApplicationIsRemovedAtOnceItsOwnAndNewerOnesNever() {
    WriterEpoch sweeper = new WriterEpoch(APP, 5);
    Instant justNow = NOW.minusSeconds(1);
    Instant longAgo = NOW.minus(OLD.multipliedBy(30));
    assertEquals(Verdict.FENCED, StaleTemporaries.judge(named("model.bin", APP, 4), justNow, sweeper, NOW));
    assertEquals(Verdict.FENCED, StaleTemporaries.judge(named("model.bin", APP, 0), justNow, sweeper, NOW));
    for (long epoch : List.of(5L, 6L)) {
      assertEquals(Verdict.CURRENT, StaleTemporaries.judge(named("model.bin", APP, epoch), longAgo, sweeper, NOW),
          "epoch " + epoch + ": a write that may still be committed, however old");
    }
    // Another job given the same output, and an older build: by age only.
    TemporaryName foreign = named("model.bin", "application_7_2", 1);
    TemporaryName unnamed = TemporaryName.parse(".model.bin." + UUID.randomUUID() + ".tmp").orElseThrow();
    for (TemporaryName n : List.of(foreign, unnamed)) {
      assertEquals(Verdict.FOREIGN, StaleTemporaries.judge(n, NOW.minus(OLD).plusSeconds(120), sweeper, NOW));
      assertEquals(Verdict.ABANDONED, StaleTemporaries.judge(n, NOW.minus(OLD), sweeper, NOW));
    }
    assertTrue(Verdict.FENCED.removed() && Verdict.ABANDONED.removed());
    assertFalse(Verdict.CURRENT.removed() || Verdict.FOREIGN.removed());
  }

  @Test
  void theSweepRemovesOnlyTemporariesOfItsTargetsThatCanNeverBeCommitted() throws IOException {
    FileSystem fs = HDFS.fileSystem();
    Path dir = new Path(HDFS.uri("/sweep"));
    WriterEpoch sweeper = new WriterEpoch(APP, 3);
    long old = System.currentTimeMillis() - OLD.toMillis() - 60_000;
    String uuid = UUID.randomUUID().toString();

    Path fenced = temporary(fs, dir, TemporaryName.of("ckpt-00000000000000000010", new WriterEpoch(APP, 2)), -1);
    Path own = temporary(fs, dir, TemporaryName.of("ckpt-00000000000000000012", sweeper), old);
    Path newer = temporary(fs, dir, TemporaryName.of("ckpt-00000000000000000014", new WriterEpoch(APP, 4)), old);
    Path olderBuild = temporary(fs, dir, ".ckpt-00000000000000000008-" + uuid + ".tmp", old);
    Path otherJobAbandoned = temporary(fs, dir,
        TemporaryName.of("ckpt-00000000000000000006", new WriterEpoch("application_7_2", 9)), old);
    Path otherJobRecent = temporary(fs, dir,
        TemporaryName.of("ckpt-00000000000000000007", new WriterEpoch("application_7_2", 9)), -1);
    // Its directory untouched for long, but a file in it just written: a write still going on.
    Path otherJobWriting = temporary(fs, dir,
        TemporaryName.of("ckpt-00000000000000000009", new WriterEpoch("application_7_2", 9)), old);
    try (FSDataOutputStream out = fs.create(new Path(otherJobWriting, "checkpoint.properties"))) {
      out.write(1);
    }
    fs.setTimes(otherJobWriting, old, -1);
    Path notOurs = temporary(fs, dir, ".ckpt-00000000000000000005-x.tmp", old);
    Path otherTarget = temporary(fs, dir, TemporaryName.of("model.bin", new WriterEpoch(APP, 1)), old);

    List<Path> removed = StaleTemporaries.sweep(fs, dir, n -> n.startsWith("ckpt-"), sweeper);

    assertEquals(names(List.of(fenced, olderBuild, otherJobAbandoned)), names(removed));
    for (Path p : List.of(fenced, olderBuild, otherJobAbandoned)) {
      assertFalse(fs.exists(p), p.getName());
    }
    for (Path p : List.of(own, newer, otherJobRecent, otherJobWriting, notOurs, otherTarget)) {
      assertTrue(fs.exists(p), p.getName() + " must stay");
    }
    assertEquals(List.of(), StaleTemporaries.sweep(fs, new Path(HDFS.uri("/no/such/dir")), n -> true, sweeper));
  }

  private static List<String> names(List<Path> paths) {
    return paths.stream().map(Path::getName).sorted().toList();
  }

  /** A temporary directory with a model file in it, last modified at {@code mtime} (-1: now). */
  private static Path temporary(FileSystem fs, Path dir, String name, long mtime) throws IOException {
    Path p = new Path(dir, name);
    Path file = new Path(p, "model.bin");
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(new byte[] {1, 2, 3});
    }
    if (mtime >= 0) {
      fs.setTimes(file, mtime, -1);
      fs.setTimes(p, mtime, -1);
    }
    return p;
  }
}
