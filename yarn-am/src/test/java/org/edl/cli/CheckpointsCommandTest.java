package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.BatchRule;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.model.SoftmaxRegression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edl checkpoints <dir>} on the local file system through Hadoop's FileSystem: periodic
 * and stop-resume checkpoints of one output directory, newest first, a damaged one shown as not
 * verifying with the reason; a missing directory or an application whose output cannot be found
 * is a user error naming what to pass.
 */
class CheckpointsCommandTest {
  private static final Configuration CONF = new Configuration();

  @TempDir
  Path output;

  private static CheckpointMeta meta(SoftmaxRegression m, long nextStep, int workers, String at) {
    return new CheckpointMeta(nextStep, 0, List.of(), nextStep * 8, BatchRule.FIXED_GLOBAL, 8, 0.1, 0.5, workers,
        m.name(), m.parameters().length, 100, 1, Instant.parse(at));
  }

  @Test
  void listsPeriodicAndStopResumeCheckpointsNewestFirstAndShowsADamagedOne() throws Exception {
    SoftmaxRegression m = new SoftmaxRegression(5, 3, 1);
    String periodic = output.resolve("checkpoints/periodic").toUri().toString();
    String restart = output.resolve("checkpoints/restart-1").toUri().toString();
    Checkpoint.write(CONF, periodic, meta(m, 10, 2, "2026-12-03T07:00:00Z"), m);
    Checkpoint stop = Checkpoint.write(CONF, restart, meta(m, 15, 3, "2026-12-03T07:05:00Z"), m);
    Checkpoint damaged = Checkpoint.write(CONF, periodic, meta(m, 20, 2, "2026-12-03T07:10:00Z"), m);
    Path model = Path.of(damaged.path().toUri()).resolve(Checkpoint.MODEL_FILE);
    byte[] bytes = Files.readAllBytes(model);
    bytes[bytes.length - 1] ^= 0x01;
    Files.write(model, bytes);
    Files.deleteIfExists(model.resolveSibling("." + Checkpoint.MODEL_FILE + ".crc"));
    // A write in progress is not listed.
    Files.createDirectories(output.resolve("checkpoints/periodic/.ckpt-00000000000000000030-x.tmp"));

    Result r = run("checkpoints", output.toString());
    assertEquals(0, r.code, r.err);
    List<String> rows = r.out.lines().filter(l -> l.matches("^\\d+ .*")).toList();
    assertEquals(3, rows.size(), r.out);
    assertTrue(rows.get(0).startsWith("20 ") && rows.get(0).contains(" NO ")
        && rows.get(0).endsWith(damaged.path().toString()), rows.get(0));
    assertTrue(r.out.contains(damaged.path() + " is damaged: " + Checkpoint.MODEL_FILE + " does not match its checksum"),
        r.out);
    assertTrue(rows.get(1).startsWith("15 ") && rows.get(1).contains("2026-12-03T07:05:00Z")
        && rows.get(1).matches(".* 3 +yes +.*") && rows.get(1).endsWith(stop.path().toString()), rows.get(1));
    assertTrue(rows.get(2).startsWith("10 ") && rows.get(2).contains(" yes "), rows.get(2));
    assertTrue(rows.get(2).contains(" B "), "size: " + rows.get(2));

    // One kind's directory lists just that kind.
    Result only = run("checkpoints", restart);
    assertEquals(1, only.out.lines().filter(l -> l.matches("^\\d+ .*")).count(), only.out);
  }

  @Test
  void aMissingDirectoryOrAnUnknownApplicationIsAUserError() {
    Result missing = run("checkpoints", output.resolve("nothing-here").toString());
    assertEquals(EdlCli.USAGE, missing.code, missing.err);
    assertTrue(missing.err.startsWith("edl: directory=") && missing.err.contains("does not exist"), missing.err);

    Result app = run("checkpoints", "application_1_99999");
    assertEquals(EdlCli.USAGE, app.code, app.err);
    assertTrue(app.err.contains("application=application_1_99999")
        && app.err.contains("pass the job's output directory"), app.err);
    assertFalse(app.err.contains("Exception"), app.err);
  }

  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlCli.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
