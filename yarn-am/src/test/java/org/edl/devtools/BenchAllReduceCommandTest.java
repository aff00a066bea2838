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

  @Test
  void helpListsTheFlagsBetweenHosts() {
    ToolRun r = ToolRun.of("bench", "allreduce", "--help");
    for (String s : new String[] {"--hosts=N", "--members-per-host=N,N,...", "(default 1,2)", "--link-gbit=G",
        "--sizes=SIZE,...", "(default 1MiB,16MiB,"}) {
      assertTrue(r.out().contains(s), "'" + s + "' in:\n" + r.out());
    }
  }

  /** Every bad flag of the benchmark between hosts is refused before any network is made, root or not. */
  @Test
  void badFlagsBetweenHostsNameTheFlagAndValue() {
    ToolRun.of("bench", "allreduce", "--hosts", "1").assertUsageError("hosts=1: must be between 2 and 16");
    ToolRun.of("bench", "allreduce", "--hosts", "two").assertUsageError("hosts=two: not a whole number");
    ToolRun.of("bench", "allreduce", "--hosts", "2", "--members-per-host", "0")
        .assertUsageError("members-per-host=0: must be between 1 and 4");
    ToolRun.of("bench", "allreduce", "--hosts", "2", "--members-per-host", "1,x")
        .assertUsageError("members-per-host=1,x: not a list of whole numbers");
    ToolRun.of("bench", "allreduce", "--hosts", "2", "--link-gbit", "fast")
        .assertUsageError("link-gbit=fast: not a number");
    ToolRun.of("bench", "allreduce", "--hosts", "2", "--link-gbit", "0")
        .assertUsageError("link-gbit=0.0: must be above 0");
    ToolRun.of("bench", "allreduce", "--hosts", "2", "--sizes", "64KiB,lots")
        .assertUsageError("sizes=lots: not a whole number");
    ToolRun.of("bench", "allreduce", "--hosts", "2", "--sizes", "100")
        .assertUsageError("sizes=100: each must be a whole number of floats between 1KiB and 1GiB");
    ToolRun.of("bench", "allreduce", "--hosts", "2", "--members", "4")
        .assertUsageError("members=4: is for the one-host benchmark");
    ToolRun.of("bench", "allreduce", "--link-gbit", "2").assertUsageError("link-gbit=2: needs --hosts N");
    ToolRun.of("bench", "allreduce", "--members-per-host", "2").assertUsageError("members-per-host=2: needs --hosts N");
  }
}
