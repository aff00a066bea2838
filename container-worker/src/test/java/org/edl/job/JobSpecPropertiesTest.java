package org.edl.job;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code job.properties} is read by the AM and the workers of a running job: the grouped
 * {@link JobSpec} writes and reads the same keys and values as the flat one did.
 */
class JobSpecPropertiesTest {
  private static final Map<String, String> FILE = Map.ofEntries(
      entry("edl.job.name", "n"), entry("edl.job.model", "mlp"), entry("edl.job.data", "hdfs:///d.csv"),
      entry("edl.job.format", "csv"), entry("edl.job.workers", "2"), entry("edl.job.min-workers", "1"),
      entry("edl.job.max-workers", "4"), entry("edl.job.gpus-per-worker", "1"),
      entry("edl.job.worker-memory", "2048"), entry("edl.job.worker-vcores", "2"), entry("edl.job.steps", "100"),
      entry("edl.job.batch-size", "64"), entry("edl.job.batch-rule", "fixed-per-worker"),
      entry("edl.job.learning-rate", "0.05"), entry("edl.job.hidden", "32"), entry("edl.job.seed", "9"),
      entry("edl.job.backend", "cpu"), entry("edl.job.output", "hdfs:///out"), entry("edl.job.queue", "q"),
      entry("edl.job.checkpoint-every-batches", "50"), entry("edl.job.checkpoint-every-minutes", "5"),
      entry("edl.job.checkpoints-kept", "2"), entry("edl.job.resume-from", "hdfs:///ck"),
      entry("edl.job.straggler-factor", "1.5"), entry("edl.job.straggler-batches", "7"),
      entry("edl.job.replace-stragglers", "true"), entry("edl.job.recovery", "approximate"),
      entry("edl.job.sync-timeout-ms", "4000"), entry("edl.job.max-worker-failures", "5"));

  private static JobSpec spec() {
    return JobSpec.builder().name("n").model("mlp").data("hdfs:///d.csv").format("csv").workers(2).minWorkers(1)
        .maxWorkers(4).gpusPerWorker(1).workerMemoryMb(2048).workerVcores(2).steps(100).batchSize(64)
        .batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(32).seed(9).backend("cpu")
        .output("hdfs:///out").queue("q").checkpoints(50, 5, 2).resumeFrom("hdfs:///ck").stragglers(1.5, 7, true)
        .recovery(new Recovery(Recovery.Mode.APPROXIMATE, 4000, 5)).build();
  }

  @Test
  void aSpecBuiltWithoutItsModelOrBackendIsRefusedNamingThePart() {
    InvalidInputException noModel = assertThrows(InvalidInputException.class,
        () -> spec().toBuilder().model(null).build());
    assertTrue(noModel.getMessage().contains("model"), noModel.getMessage());
    InvalidInputException noBackend = assertThrows(InvalidInputException.class,
        () -> spec().toBuilder().backend(null).build());
    assertTrue(noBackend.getMessage().contains("backend"), noBackend.getMessage());
  }

  @Test
  void writesTheKeysAndValuesOfEveryEarlierJobFileTheGatheringWindowAndGrowth() {
    Properties p = spec().toProperties();
    Map<String, String> written = new TreeMap<>();
    p.stringPropertyNames().forEach(k -> written.put(k, p.getProperty(k)));
    Map<String, String> expected = new TreeMap<>(FILE);
    expected.put("edl.job.gather-ms", "-1");
    expected.put("edl.job.grow", "false");
    expected.put("edl.job.grow-efficiency", "0.5");
    expected.put("edl.job.grow-hold-off-ms", "60000");
    expected.put("edl.job.grow-mode", "edl");
    expected.put("edl.job.emulated-sync", "transfer");
    expected.put("edl.job.data-cache", "job");
    expected.put("edl.job.timeline", "false");
    expected.put("edl.job.ring-transport", "auto");
    assertEquals(expected, written);
  }

  @Test
  void theDataCacheGoesThroughTheFileAndOnlyADirectoryIsOne() throws Exception {
    for (String cache : List.of("hdfs:///copies", "job", "off")) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      spec().toBuilder().dataCache(cache).build().write(out);
      assertEquals(cache, JobSpec.read(new ByteArrayInputStream(out.toByteArray())).data().cache());
    }
    assertEquals("hdfs:///copies", new Data("d", "csv", "hdfs:///copies").cacheDir());
    assertEquals("", new Data("d", "csv", "job").cacheDir(), "the client fills in the staging directory");
    assertEquals("", new Data("d", "csv", "off").cacheDir());
  }

  @Test
  void growthGoesThroughTheFileAndAFileWithoutItDoesNotGrow() throws Exception {
    for (Growth g : List.of(new Growth(true, 0.25, 1000), new Growth(true, Double.NaN, 0),
        new Growth(true, 0.5, 0, org.edl.job.ScaleMode.STOP_RESUME))) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      spec().toBuilder().growth(g).build().write(out);
      assertEquals(g, JobSpec.read(new ByteArrayInputStream(out.toByteArray())).growth());
    }
    assertEquals(Growth.OFF, spec().growth());
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> spec().toBuilder().growth(new Growth(true, 0.5, -1)).build());
    assertTrue(e.getMessage().contains("grow-hold-off-ms"), e.getMessage());
    e = assertThrows(InvalidInputException.class, () -> Growth.efficiencyOf("1.5"));
    assertTrue(e.getMessage().contains("grow-efficiency") && e.getMessage().contains("1.5"), e.getMessage());
  }

  @Test
  void timelinesAreOffUnlessAskedForAndTheChoiceGoesThroughTheFile() throws Exception {
    assertFalse(spec().timeline());
    for (boolean on : new boolean[] {true, false}) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      spec().toBuilder().timeline(on).build().write(out);
      JobSpec read = JobSpec.read(new ByteArrayInputStream(out.toByteArray()));
      assertEquals(on, read.timeline());
      assertEquals(on, read.toBuilder().build().timeline(), "a changed copy keeps it");
    }
  }

  @Test
  void theRingTransportGoesThroughTheFileAnOlderFileSharesMemoryAndAnUnknownOneIsRefused() throws Exception {
    assertEquals("auto", spec().ringTransport());
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    spec().toBuilder().ringTransport("tcp").build().write(out);
    assertEquals("tcp", JobSpec.read(new ByteArrayInputStream(out.toByteArray())).ringTransport());
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> spec().toBuilder().ringTransport("rdma").build());
    assertTrue(e.getMessage().contains("ring-transport") && e.getMessage().contains("rdma")
        && e.getMessage().contains("auto, tcp"), e.getMessage());
  }

  @Test
  void theGatheringWindowGoesThroughTheFile() throws Exception {
    JobSpec gathering = spec().toBuilder().gatherMs(5000).build();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    gathering.write(out);
    JobSpec read = JobSpec.read(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(new Scale(2, 1, 4, 5000), read.scale());
    assertTrue(read.scale().startsAtMinimum());
    assertFalse(spec().scale().startsAtMinimum(), "a job built in code waits for all its workers");
  }

  @Test
  void readsAFileWrittenBeforeTheGrouping() throws Exception {
    StringBuilder file = new StringBuilder("#EDL job specification\n#Thu Jan 01 00:00:00 UTC 2026\n");
    FILE.forEach((k, v) -> file.append(k).append('=').append(v.replace(":", "\\:")).append('\n'));
    JobSpec read = JobSpec.read(new ByteArrayInputStream(file.toString().getBytes(StandardCharsets.ISO_8859_1)));
    assertEquals(spec().toBuilder().dataCache("").timeline(true).build(), read,
        "an older file has no copy of the data, and its workers wrote timelines");
    assertEquals(new Scale(2, 1, 4), read.scale());
    assertEquals(Growth.OFF, read.growth());
    assertEquals(new Resources(1, 2048, 2), read.resources());
    assertEquals(new Checkpoints(50, 5, 2, "hdfs:///ck"), read.checkpoints());
    assertEquals(new Stragglers(1.5, 7, true), read.stragglers());
    assertEquals(new Data("hdfs:///d.csv", "csv"), read.data());
  }

  @Test
  void theBuilderValidatesNamingTheFieldAndTheValue() {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> spec().toBuilder().minWorkers(3).workers(2).build());
    assertEquals("min-workers=3: more than --workers=2", e.getMessage());
    e = assertThrows(InvalidInputException.class, () -> spec().toBuilder().format("parquet").build());
    assertEquals("format", e.field());
    assertEquals("parquet", e.value());
  }

  @Test
  void aScriptJobWritesItsScriptArgumentsAndInterpreterAndReadsThemBack() {
    JobSpec script = JobSpec.builder().name("s").script(new Script("train.py", List.of("--epochs", "3", "a b"),
        "/usr/bin/python3")).workers(2).minWorkers(1).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(1024)
        .workerVcores(1).steps(100).batchSize(64).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(1)
        .backend("cpu").output("hdfs:///out").build();
    Properties p = script.toProperties();
    assertEquals("train.py", p.getProperty("edl.job.script"));
    assertEquals("3", p.getProperty("edl.job.script-args"));
    assertEquals("a b", p.getProperty("edl.job.script-arg.2"));
    assertEquals("script:train.py", p.getProperty("edl.job.model"));
    JobSpec read = JobSpec.fromProperties(p);
    assertEquals(script.script(), read.script());
    assertEquals("script:train.py", read.training().model());
    assertEquals(Script.NONE, spec().script(), "a built-in model's job has none");
    assertFalse(spec().toProperties().containsKey("edl.job.script"));
  }

  @Test
  void aScriptJobTakesStragglerDetectionAndRefusesTheEmulatedBackendNamingTheFlag() {
    JobSpecBuilder b = JobSpec.builder().name("s").script(new Script("train.py", List.of(), "python3")).workers(2)
        .minWorkers(1).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(1024).workerVcores(1).steps(100).batchSize(64)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(1).output("hdfs:///out");
    // Each script measures its own computing, outside its group's all-reduce.
    assertEquals(1.2, b.backend("cpu").stragglers(1.2, 10, false).build().stragglers().factor());
    InvalidInputException emulated = assertThrows(InvalidInputException.class,
        () -> b.backend("emulated").stragglers(0, 0, false).build());
    assertTrue(emulated.getMessage().startsWith("backend=emulated: "), emulated.getMessage());
  }

  @Test
  void processesPerWorkerGoThroughTheFileDefaultToTheGpusOnCudaAndAreRefusedBeyondThem() {
    JobSpecBuilder b = JobSpec.builder().name("s").workers(2).minWorkers(1).maxWorkers(3).gpusPerWorker(2)
        .workerMemoryMb(1024).workerVcores(1).steps(100).batchSize(64).batchRule(BatchRule.FIXED_GLOBAL)
        .learningRate(0.1).seed(1).output("hdfs:///out");
    JobSpec two = b.script(new Script("train.py", List.of(), "python3", 2)).backend("cuda").build();
    assertEquals("2", two.toProperties().getProperty("edl.job.procs-per-worker"));
    assertEquals(2, JobSpec.fromProperties(two.toProperties()).script().procsPerWorker());
    Script byDefault = new Script("train.py", List.of(), "python3");
    assertEquals(2, byDefault.processes("cuda", 2), "one per GPU");
    assertEquals(1, byDefault.processes("cpu", 2), "one on the CPU");
    InvalidInputException beyond = assertThrows(InvalidInputException.class,
        () -> b.script(new Script("train.py", List.of(), "python3", 3)).backend("cuda").build());
    assertTrue(beyond.getMessage().startsWith("procs-per-worker=3: "), beyond.getMessage());
    InvalidInputException negative = assertThrows(InvalidInputException.class,
        () -> b.script(new Script("train.py", List.of(), "python3", -1)).backend("cpu").build());
    assertTrue(negative.getMessage().startsWith("procs-per-worker=-1: "), negative.getMessage());
  }
}
