package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edl bench allreduce}: a picocli subcommand with the benchmark's own options; a bad value
 * or an unknown flag is one line and exit 2, before anything runs.
 */
class BenchAllReduceCommandTest {
  @Test
  void helpListsEveryOptionWithItsDefault() {
    ToolRun r = ToolRun.of("bench", "allreduce", "--help");
    assertEquals(0, r.code(), r.err());
    for (String s : new String[] {"--max-bytes=SIZE", "largest message, e.g. 256MiB (default 256MiB;",
        "--iterations=N", "after warm-up (default 8)", "--out-dir=DIR", "(default docs/benchmarks)",
        "--members=N,N,...", "ring sizes (default 2,4)", "--chunk-bytes=SIZE", "ring chunk size (default 1MiB)"}) {
      assertTrue(r.out().contains(s), "'" + s + "' in:\n" + r.out());
    }
  }

  @Test
  void badValuesAndUnknownFlagsAreOneLineAndExit2(@TempDir Path dir) throws Exception {
    ToolRun.of("bench", "allreduce", "--max-bytes", "lots").assertUsageError("max-bytes=lots: not a whole number");
    ToolRun.of("bench", "allreduce", "--iterations=0").assertUsageError("iterations=0: must be between 1 and");
    ToolRun.of("bench", "allreduce", "--members", "2,1").assertUsageError("members=2,1: must be between 2 and 64");
    ToolRun.of("bench", "allreduce", "--fast").assertUsageError("--fast");
    ToolRun.of("bench", "allreduce", "--iterations").assertUsageError("--iterations");
    Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
    ToolRun.of("bench", "allreduce", "--out-dir", file.toString()).assertUsageError("exists and is not a directory");
  }
}
