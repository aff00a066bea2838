package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.testing.YarnCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input through the real {@code edl submit} code against a real embedded cluster: each
 * mistake gets one line naming the field and the value, exit code 2, and leaves no application
 * in the ResourceManager and no staging directory in HDFS.
 */
class SubmitBadInputTest {
  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  @AfterEach
  void nothingWasLeftBehind() throws Exception {
    assertEquals(List.of(), CLUSTER.yarn().getApplications(), "no application reached the ResourceManager");
    FileSystem fs = CLUSTER.fileSystem();
    Path staging = CLUSTER.home(".edl");
    assertTrue(!fs.exists(staging) || fs.listStatus(staging).length == 0, "no staging directory");
  }

  @Test
  void unknownModel() {
    Result r = submit("--model", "resnet9000");
    r.assertUserError("model=resnet9000", "unknown model");
  }

  @Test
  void aScriptThatIsNotThere() {
    Result r = submit("--script", "/no/such/train.py");
    r.assertUserError("script=/no/such/train.py", "not a readable file");
  }

  @Test
  void scriptArgumentsWithoutAScript() {
    Result r = submit("--", "--epochs", "3");
    r.assertUserError("ARGS=--epochs 3", "only a --script or --torchrun script takes arguments");
  }

  @Test
  void cudaWithoutAGpuPerWorker() {
    Result r = submit("--backend", "cuda", "--gpus-per-worker", "0");
    r.assertUserError("gpus-per-worker=0", "--backend cuda trains on the GPU");
  }

  @Test
  void stragglerFactorAtOrBelowOne() {
    Result r = submit("--straggler-factor", "0.9");
    r.assertUserError("straggler-factor=0.9", "must be above 1");
  }

  @Test
  void stragglerBatchesNotANumber() {
    Result r = submit("--straggler-batches", "ten");
    r.assertUserError("straggler-batches=ten", "not a number (or off)");
  }

  @Test
  void fewerThanOneWorker() {
    Result r = submit("--workers", "0");
    r.assertUserError("workers=0", "at least 1");
  }

  @Test
  void moreGpusPerWorkerThanAnyNodeHas() {
    Result r = submit("--gpus-per-worker", "5");
    r.assertUserError("gpus-per-worker=5", "more than any node has (largest: 4 yarn.io/gpu)");
  }

  @Test
  void dataPathThatDoesNotExist() {
    Result r = submit("--data", "/no/such/train.libsvm");
    r.assertUserError("/no/such/train.libsvm", "does not exist");
  }

  @Test
  void malformedLibsvmLineNamesLineAndField() throws Exception {
    Path file = CLUSTER.home("bad/train.libsvm");
    try (OutputStream out = CLUSTER.fileSystem().create(file, true)) {
      out.write("1 1:0.5 2:1.5\n0 1:0.25 2:0.75\n1 1:0.5 2:abc\n".getBytes(StandardCharsets.UTF_8));
    }
    Result r = submit("--data", file.toString());
    r.assertUserError("train.libsvm", "line 3, field 3 ('2:abc')");
  }

  @Test
  void unknownFlag() {
    Result r = submit("--wokers", "4");
    r.assertUserError("--wokers", "Unknown option");
  }

  @Test
  void valueOfTheWrongType() {
    Result r = submit("--workers", "four");
    r.assertUserError("--workers", "'four'");
  }

  private static Result submit(String... extra) {
    List<String> args = new ArrayList<>(List.of("submit", "--conf", CLUSTER.cluster().confDir().toString(),
        "--steps", "5"));
    args.addAll(List.of(extra));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlCli.execute(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private record Result(int code, String out, String err) {
    void assertUserError(String... fragments) {
      assertEquals(EdlCli.USAGE, code, "exit code; stderr: " + err);
      String line = err.strip();
      assertFalse(line.contains("\n"), "one line only, got: " + err);
      assertTrue(line.startsWith("edl: "), line);
      for (String f : fragments) {
        assertTrue(line.contains(f), "'" + f + "' in: " + line);
      }
      assertFalse(err.contains("Exception"), "no stack trace: " + err);
    }
  }
}
