package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Flags of the job-control commands that are wrong on their face: refused as usage errors
 * (one line, exit 2) before the CLI connects to anything, so no cluster is needed; a command
 * that did try to connect would find no ResourceManager and fail differently.
 */
class JobControlUsageTest {
  private static final String APP = "application_1700000000000_0001";

  @Test
  void scaleInWithBothCountAndContainers() {
    usageError(run("scale-in", APP, "-n", "1", "--container", "container_1700000000000_0001_01_000002"),
        "mutually exclusive");
  }

  @Test
  void scaleInWithNeitherCountNorContainers() {
    usageError(run("scale-in", APP), "Missing required argument");
  }

  @Test
  void scaleInOfAMalformedContainerId() {
    usageError(run("scale-in", APP, "--container", "worker-2"), "--container=worker-2", "not a container id");
  }

  @Test
  void scaleOutByZero() {
    usageError(run("scale-out", APP, "-n", "0"), "--count=0", "at least 1");
  }

  @Test
  void unknownMode() {
    usageError(run("scale-out", APP, "--mode", "fast"), "--mode=fast", "edl or stop-resume");
  }

  @Test
  void malformedApplicationId() {
    usageError(run("status", "application_12"), "application=application_12", "not an application id");
  }

  @Test
  void missingApplicationId() {
    usageError(run("status"), "APP_ID");
  }

  @Test
  void migrateToTheSameHost() {
    usageError(run("migrate", APP, "--from", "node1", "--to", "node1"), "--to=node1", "same host");
  }

  @Test
  void migrateWithoutTarget() {
    usageError(run("migrate", APP, "--from", "node1"), "--to");
  }

  @Test
  void profileWithMaxBelowMin() {
    usageError(run("profile", APP, "--min", "4", "--max", "2"), "--max=2", "less than --min 4");
  }

  @Test
  void unknownFlag() {
    usageError(run("status", APP, "--wokers", "2"), "--wokers");
  }

  static void usageError(Result r, String... fragments) {
    assertEquals(EdlCli.USAGE, r.code, "exit code; stderr: " + r.err + " stdout: " + r.out);
    String line = r.err.strip();
    assertFalse(line.contains("\n"), "one line only, got: " + r.err);
    assertTrue(line.startsWith("edl: "), line);
    for (String f : fragments) {
      assertTrue(line.contains(f), "'" + f + "' in: " + line);
    }
    assertFalse(r.err.contains("Exception"), "no stack trace: " + r.err);
  }

  static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlCli.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  record Result(int code, String out, String err) {}
}
