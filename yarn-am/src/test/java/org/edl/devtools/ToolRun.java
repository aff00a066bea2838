package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.edl.cli.EdlCli;

/** One {@code bin/edl} tools command run in this JVM, with what it printed, for the command tests. */
record ToolRun(int code, String out, String err) {
  static ToolRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlTools.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new ToolRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** A usage error: exit 2 and one line on stderr, {@code edl: ...}, holding every fragment. */
  void assertUsageError(String... fragments) {
    assertEquals(EdlCli.USAGE, code, "exit code; stderr: " + err);
    String line = err.strip();
    assertFalse(line.contains("\n"), "one line only, got: " + err);
    assertTrue(line.startsWith("edl: "), line);
    for (String f : fragments) {
      assertTrue(line.contains(f), "'" + f + "' in: " + line);
    }
  }
}
