package org.edl.worker.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.worker.model.IncompatibleStateException;
import org.edl.worker.model.Mlp;
import org.edl.worker.model.SoftmaxRegression;
import org.edl.worker.model.TrainableModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints on the local file system through Hadoop's FileSystem, including damaged ones. */
class CheckpointTest {
  private static final Configuration CONF = new Configuration();

  @TempDir
  Path dir;

  private static CheckpointMeta meta(TrainableModel m, long nextStep) {
    return new CheckpointMeta(nextStep, 1, List.of(0, 1, 2, 5), nextStep * 24, BatchRule.FIXED_PER_WORKER,
        8, 0.05, 1.25, 3, m.name(), m.parameters().length, 600, 3, Instant.parse("2026-12-03T06:30:00Z"));
  }

  private String root() {
    return dir.resolve("ckpts").toUri().toString();
  }

  private Path local(org.apache.hadoop.fs.Path p) {
    return Path.of(p.toUri());
  }

  @Test
  void aCheckpointRoundTripsParametersAndPosition() throws IOException {
    // Larger than the IO buffer, so the model file spans several reads.
    Mlp saved = new Mlp(300, 70, 4, 1);
    Checkpoint written = Checkpoint.write(CONF, root(), meta(saved, 120), saved);
    assertEquals(Checkpoint.nameFor(120), written.path().getName());

    Checkpoint read = Checkpoint.read(CONF, root());
    assertEquals(written.path(), read.path());
    assertEquals(meta(saved, 120), read.meta());
    Mlp restored = new Mlp(300, 70, 4, 2);
    assertFalse(Arrays.equals(saved.parameters(), restored.parameters()));
    read.restoreInto(restored);
    assertArrayEquals(saved.parameters(), restored.parameters());
    assertEquals(read.modelBytes(), Files.size(local(read.path()).resolve(Checkpoint.MODEL_FILE)));
  }

  @Test
  void theMetaDataCarriesTheJobPositionAndRule() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    CheckpointMeta in = new CheckpointMeta(42, 2, IntStream.range(0, 125).boxed().toList(), 6000,
        BatchRule.FIXED_GLOBAL, 24, 0.3, Double.NaN, 2, m.name(), m.parameters().length, 2400, 11,
        Instant.parse("2026-12-03T06:31:02.5Z"));
    Checkpoint.write(CONF, root(), in, m);
    CheckpointMeta out = Checkpoint.read(CONF, root()).meta();
    assertEquals(in, out);
    String text = Files.readString(local(Checkpoint.read(CONF, root()).path()).resolve(Checkpoint.META_FILE));
    assertTrue(text.contains("finished-chunks=0-124\n"), text);
    assertEquals(in.nextStep(), out.toJobMeta().getStep());
    assertEquals(6000, out.toJobMeta().getSamplesSeen());
    assertFalse(out.toJobMeta().isSetLastLoss(), "an unknown loss stays unset");
  }

  @Test
  void chunkRangesRoundTrip() throws IOException {
    assertEquals("0-2,5,7-8", CheckpointMeta.rangesText(List.of(0, 1, 2, 5, 7, 8)));
    assertEquals("", CheckpointMeta.rangesText(List.of()));
    assertEquals(List.of(0, 1, 2, 5, 7, 8), CheckpointMeta.parseRanges("0-2,5,7-8", "x"));
    assertThrows(IOException.class, () -> CheckpointMeta.parseRanges("3-1", "x"));
  }

  @Test
  void aDirectoryOfCheckpointsIsReadThroughItsNewestAndAnyOneByItsOwnPath() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint first = Checkpoint.write(CONF, root(), meta(m, 9), m);
    m.parameters()[0] = 4f;
    Checkpoint.write(CONF, root(), meta(m, 100), m);
    Checkpoint.write(CONF, root(), meta(m, 20), m);
    assertEquals(100, Checkpoint.read(CONF, root()).meta().nextStep(), "ordered by step, not by write");
    assertEquals(3, CheckpointDirectory.list(CONF, root()).size());
    assertEquals(9, Checkpoint.read(CONF, first.path().toString()).meta().nextStep());
  }

  @Test
  void aCheckpointIsNeverReplaced() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint.write(CONF, root(), meta(m, 9), m);
    assertThrows(FileAlreadyExistsException.class, () -> Checkpoint.write(CONF, root(), meta(m, 9), m));
  }

  @Test
  void anotherModelOrShapeIsIncompatibleAndLeavesTheModelAlone() throws IOException {
    Mlp saved = new Mlp(20, 64, 4, 1);
    Checkpoint.write(CONF, root(), meta(saved, 5), saved);
    Checkpoint c = Checkpoint.read(CONF, root());

    Mlp narrower = new Mlp(20, 32, 4, 1);
    float[] before = narrower.parameters().clone();
    IncompatibleStateException e = assertThrows(IncompatibleStateException.class, () -> c.restoreInto(narrower));
    assertTrue(e.getMessage().contains(c.path().toString()), e.getMessage());
    assertArrayEquals(before, narrower.parameters());

    SoftmaxRegression other = new SoftmaxRegression(20, 4, 1);
    e = assertThrows(IncompatibleStateException.class, () -> c.restoreInto(other));
    assertTrue(e.getMessage().contains("mlp") && e.getMessage().contains("softmax"), e.getMessage());
  }

  @Test
  void aJobWithAnotherRuleOrDataIsRefusedButAnotherWorkerCountIsNot() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    CheckpointMeta cm = meta(m, 50);
    JobSpec same = JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=600,features=7,classes=3,seed=3").format("auto").workers(2).minWorkers(1)
        .maxWorkers(4).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(200).batchSize(8)
        .batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(8).seed(3).backend("cpu").build();
    cm.requireContinuable(same, 600, "c");
    JobSpec globalRule = JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=600,features=7,classes=3,seed=3").format("auto").workers(2).minWorkers(1)
        .maxWorkers(4).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(200).batchSize(8)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.05).hidden(8).seed(3).backend("cpu").build();
    IncompatibleStateException e = assertThrows(IncompatibleStateException.class,
        () -> cm.requireContinuable(globalRule, 600, "c"));
    assertTrue(e.getMessage().contains("batch-rule fixed-per-worker vs fixed-global"), e.getMessage());
    e = assertThrows(IncompatibleStateException.class, () -> cm.requireContinuable(same, 601, "c"));
    assertTrue(e.getMessage().contains("data samples 600 vs 601"), e.getMessage());
  }

  @Test
  void aWriteThatCrashedBeforeItsRenameLeavesNoCheckpoint() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint.write(CONF, root(), meta(m, 10), m);
    // What a crash mid-write leaves: a hidden temporary directory with part of the files.
    Path tmp = Files.createDirectories(Path.of(java.net.URI.create(root())).resolve(".ckpt-00000000000000000020-x.tmp"));
    Files.write(tmp.resolve(Checkpoint.MODEL_FILE), new byte[] {1, 2, 3});
    assertEquals(10, Checkpoint.read(CONF, root()).meta().nextStep(), "the half-written one is not a checkpoint");
    assertEquals(1, CheckpointDirectory.list(CONF, root()).size());
  }

  @Test
  void aStreamedModelIsRenamedIntoPlaceOnlyWhileTheWriterMayCommit() throws IOException {
    Mlp m = new Mlp(300, 70, 4, 1);
    IOException superseded = assertThrows(IOException.class,
        () -> Checkpoint.write(CONF, root(), meta(m, 30), m, "application_5_1", () -> false));
    assertTrue(superseded.getMessage().contains("not committed"), superseded.getMessage());
    assertEquals(List.of(), CheckpointDirectory.list(CONF, root()));
    try (var left = Files.list(Path.of(java.net.URI.create(root())))) {
      assertEquals(0, left.count(), "no temporary directory is left behind");
    }

    Checkpoint c = Checkpoint.write(CONF, root(), meta(m, 30), m, "application_5_1", () -> true);
    Mlp restored = new Mlp(300, 70, 4, 2);
    Checkpoint.read(CONF, c.path().toString()).restoreInto(restored);
    assertArrayEquals(m.parameters(), restored.parameters());
  }

  @Test
  void aCheckpointWithoutItsMarkerIsIncomplete() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint c = Checkpoint.write(CONF, root(), meta(m, 10), m);
    Files.delete(local(c.path()).resolve(Checkpoint.COMPLETE_MARKER));
    IOException e = assertThrows(IOException.class, () -> Checkpoint.read(CONF, root()));
    assertTrue(e.getMessage().contains(c.path().toString()) && e.getMessage().contains("incomplete"), e.getMessage());
  }

  @Test
  void aDamagedModelFileIsReportedWithItsPath() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint c = Checkpoint.write(CONF, root(), meta(m, 10), m);
    Path model = local(c.path()).resolve(Checkpoint.MODEL_FILE);
    byte[] bytes = Files.readAllBytes(model);
    bytes[bytes.length - 3] ^= 0x40;
    Files.write(model, bytes);
    // Without the local file system's own checksum file, the checkpoint's checksum must see it.
    Files.deleteIfExists(model.resolveSibling("." + Checkpoint.MODEL_FILE + ".crc"));
    Checkpoint read = Checkpoint.read(CONF, root());
    IOException e = assertThrows(IOException.class, () -> read.restoreInto(new SoftmaxRegression(7, 3, 2)));
    assertFalse(e instanceof IncompatibleStateException);
    assertTrue(e.getMessage().contains(c.path().toString()) && e.getMessage().contains("checksum"), e.getMessage());
  }

  @Test
  void aTruncatedModelFileIsReportedOnRead() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint c = Checkpoint.write(CONF, root(), meta(m, 10), m);
    Path model = local(c.path()).resolve(Checkpoint.MODEL_FILE);
    byte[] bytes = Files.readAllBytes(model);
    Files.write(model, Arrays.copyOf(bytes, bytes.length - 8));
    Files.deleteIfExists(model.resolveSibling("." + Checkpoint.MODEL_FILE + ".crc"));
    IOException e = assertThrows(IOException.class, () -> Checkpoint.read(CONF, c.path().toString()));
    assertTrue(e.getMessage().contains(c.path().toString()) && e.getMessage().contains("bytes"), e.getMessage());
  }

  @Test
  void damagedMetaDataIsReportedWithItsPath() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint c = Checkpoint.write(CONF, root(), meta(m, 10), m);
    Path meta = local(c.path()).resolve(Checkpoint.META_FILE);
    Files.writeString(meta, Files.readString(meta).replace("next-step=10", "next-step=11"), StandardCharsets.UTF_8);
    Files.deleteIfExists(meta.resolveSibling("." + Checkpoint.META_FILE + ".crc"));
    IOException e = assertThrows(IOException.class, () -> Checkpoint.read(CONF, root()));
    assertTrue(e.getMessage().contains(c.path().toString()) && e.getMessage().contains(Checkpoint.META_FILE),
        e.getMessage());
  }

  @Test
  void aMissingOrEmptyLocationSaysSo() throws IOException {
    String missing = dir.resolve("nowhere").toUri().toString();
    FileNotFoundException e = assertThrows(FileNotFoundException.class, () -> Checkpoint.read(CONF, missing));
    assertTrue(e.getMessage().contains("nowhere"), e.getMessage());
    Files.createDirectories(dir.resolve("empty"));
    e = assertThrows(FileNotFoundException.class, () -> Checkpoint.read(CONF, dir.resolve("empty").toString()));
    assertTrue(e.getMessage().contains("no checkpoint in"), e.getMessage());
    try (Stream<Path> s = Files.list(dir.resolve("empty"))) {
      assertEquals(0, s.count());
    }
  }

  private void damageModel(Checkpoint c) throws IOException {
    Path model = local(c.path()).resolve(Checkpoint.MODEL_FILE);
    byte[] bytes = Files.readAllBytes(model);
    bytes[bytes.length - 3] ^= 0x40;
    Files.write(model, bytes);
    Files.deleteIfExists(model.resolveSibling("." + Checkpoint.MODEL_FILE + ".crc"));
  }

  @Test
  void aDamagedOrPartialNewestCheckpointIsSkippedForTheOneBeforeIt() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    Checkpoint good = Checkpoint.write(CONF, root(), meta(m, 10), m);
    Checkpoint damaged = Checkpoint.write(CONF, root(), meta(m, 20), m);
    Checkpoint partial = Checkpoint.write(CONF, root(), meta(m, 30), m);
    damageModel(damaged);
    Files.delete(local(partial.path()).resolve(Checkpoint.COMPLETE_MARKER));

    assertEquals(good.path(), CheckpointDirectory.readNewestValid(CONF, root()).path());
    // The strict read still reads the newest one, and refuses it.
    IOException strict = assertThrows(IOException.class, () -> Checkpoint.read(CONF, root()));
    assertTrue(strict.getMessage().contains("incomplete"), strict.getMessage());
    IOException one = assertThrows(IOException.class, () -> CheckpointDirectory.readNewestValid(CONF, damaged.path().toString()));
    assertTrue(one.getMessage().contains(damaged.path().toString()) && one.getMessage().contains("checksum"),
        one.getMessage());

    damageModel(good);
    IOException none = assertThrows(IOException.class, () -> CheckpointDirectory.readNewestValid(CONF, root()));
    assertTrue(none.getMessage().contains("no checkpoint in") && none.getMessage().contains(good.path().toString()),
        none.getMessage());
  }

  @Test
  void pruneKeepsTheNewestKAndASnapshotWritesWhatTheModelWould() throws IOException {
    SoftmaxRegression m = new SoftmaxRegression(7, 3, 1);
    for (long step : List.of(5L, 10L, 15L, 20L)) {
      Checkpoint.write(CONF, root(), meta(m, step), Checkpoint.snapshot(m));
    }
    // A write in progress is not a checkpoint: pruning never touches it.
    Path tmp = Files.createDirectories(dir.resolve("ckpts").resolve(".ckpt-00000000000000000025-x.tmp"));
    List<org.apache.hadoop.fs.Path> deleted = CheckpointDirectory.prune(CONF, root(), 2);
    assertEquals(List.of(Checkpoint.nameFor(5), Checkpoint.nameFor(10)),
        deleted.stream().map(org.apache.hadoop.fs.Path::getName).toList());
    assertEquals(List.of(Checkpoint.nameFor(15), Checkpoint.nameFor(20)),
        CheckpointDirectory.list(CONF, root()).stream().map(org.apache.hadoop.fs.Path::getName).toList());
    assertTrue(Files.isDirectory(tmp));
    assertEquals(List.of(), CheckpointDirectory.prune(CONF, root(), 3));

    Checkpoint c = CheckpointDirectory.readNewestValid(CONF, root());
    SoftmaxRegression restored = new SoftmaxRegression(7, 3, 2);
    c.restoreInto(restored);
    assertArrayEquals(m.parameters(), restored.parameters());
  }
}
