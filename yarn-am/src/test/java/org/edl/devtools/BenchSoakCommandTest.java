package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.edl.bench.soak.SoakReport;
import org.edl.bench.soak.SoakSample;
import org.edl.cli.EdlCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edl bench soak}: flags wrong on their face are refused (one line, exit 2) before any
 * cluster starts, and {@code --replot} redraws the chart and the trend table from a CSV.
 */
class BenchSoakCommandTest {
  @TempDir
  Path dir;

  @Test
  void badValuesAreRefusedNamingTheFlag() {
    usageError(run("bench", "soak", "--operations", "0"), "--operations=0", "at least 1");
    usageError(run("bench", "soak", "--operations", "10", "--sample-every", "11"), "--sample-every=11");
    usageError(run("bench", "soak", "--backend", "cuda"), "--backend=cuda", "cpu or emulated");
    usageError(run("bench", "soak", "--max-minutes", "-1"), "--max-minutes=-1");
    usageError(run("bench", "soak", "--replot", dir.resolve("none.csv").toString()), "--replot=", "no such file");
  }

  @Test
  void replotDrawsTheChartAndPrintsTheTrends() throws Exception {
    Path csv = dir.resolve("soak.csv");
    new SoakReport(List.of(new SoakSample(0, 44, 216, 451, 49, 21, 12, 17, 368, 151, 226, 28, 0, 5, 4, 60),
        new SoakSample(100, 48, 217, 452, 55, 22, 15, 17, 359, 148, 227, 30, 1, 5, 4, 7104))).writeCsv(csv);
    Result r = run("bench", "soak", "--replot", csv.toString(), "--out", dir.resolve("out").toString());
    assertEquals(0, r.code, r.err);
    assertTrue(Files.size(dir.resolve("out/soak.png")) > 0);
    assertTrue(r.out.contains("| AM threads | 48 | 48 |"), r.out);
  }

  private static void usageError(Result r, String... fragments) {
    assertEquals(EdlCli.USAGE, r.code, "exit code; stderr: " + r.err);
    String line = r.err.strip();
    assertFalse(line.contains("\n"), "one line only, got: " + r.err);
    for (String f : fragments) {
      assertTrue(line.contains(f), "'" + f + "' in: " + line);
    }
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
