package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.edl.cli.EdlCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edl bench allreduce}: a picocli subcommand with the benchmark's own options; a bad value
 * or an unknown flag is one line and exit 2, before anything runs.
 */
class BenchAllReduceCommandTest {
  @Test
  void helpListsEveryOptionWithItsDefault() {
    Result r = run("bench", "allreduce", "--help");
    assertEquals(0, r.code, r.err);
    for (String s : new String[] {"--max-bytes=SIZE", "largest message, e.g. 256MiB (default 256MiB;",
        "--iterations=N", "after warm-up (default 8)", "--out-dir=DIR", "(default docs/benchmarks)",
        "--members=N,N,...", "ring sizes (default 2,4)", "--chunk-bytes=SIZE", "ring chunk size (default 1MiB)"}) {
      assertTrue(r.out.contains(s), "'" + s + "' in:\n" + r.out);
    }
  }

  @Test
  void badValuesAndUnknownFlagsAreOneLineAndExit2(@TempDir Path dir) throws Exception {
    usageError(run("bench", "allreduce", "--max-bytes", "lots"), "max-bytes=lots: not a whole number");
    usageError(run("bench", "allreduce", "--iterations=0"), "iterations=0: must be between 1 and");
    usageError(run("bench", "allreduce", "--members", "2,1"), "members=2,1: must be between 2 and 64");
    usageError(run("bench", "allreduce", "--fast"), "--fast");
    usageError(run("bench", "allreduce", "--iterations"), "--iterations");
    Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
    usageError(run("bench", "allreduce", "--out-dir", file.toString()), "exists and is not a directory");
  }

  private static void usageError(Result r, String fragment) {
    assertEquals(EdlCli.USAGE, r.code, "exit code; stderr: " + r.err);
    String line = r.err.strip();
    assertFalse(line.contains("\n"), "one line only, got: " + r.err);
    assertTrue(line.startsWith("edl: ") && line.contains(fragment), line);
  }

  private static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlTools.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private record Result(int code, String out, String err) {}
}
