package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.edl.bench.soak.SoakReport;
import org.edl.bench.soak.SoakSample;
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
    ToolRun.of("bench", "soak", "--operations", "0").assertUsageError("--operations=0", "at least 1");
    ToolRun.of("bench", "soak", "--operations", "10", "--sample-every", "11").assertUsageError("--sample-every=11");
    ToolRun.of("bench", "soak", "--backend", "cuda").assertUsageError("--backend=cuda", "cpu or emulated");
    ToolRun.of("bench", "soak", "--max-minutes", "-1").assertUsageError("--max-minutes=-1");
    ToolRun.of("bench", "soak", "--replot", dir.resolve("none.csv").toString()).assertUsageError("--replot=", "no such file");
  }

  @Test
  void replotDrawsTheChartAndPrintsTheTrends() throws Exception {
    Path csv = dir.resolve("soak.csv");
    new SoakReport(List.of(new SoakSample(0, 44, 216, 451, 49, 21, 12, 17, 368, 151, 226, 28, 0, 5, 4, 60),
        new SoakSample(100, 48, 217, 452, 55, 22, 15, 17, 359, 148, 227, 30, 1, 5, 4, 7104))).writeCsv(csv);
    ToolRun r = ToolRun.of("bench", "soak", "--replot", csv.toString(), "--out", dir.resolve("out").toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.size(dir.resolve("out/soak.png")) > 0);
    assertTrue(r.out().contains("| AM threads | 48 | 48 |"), r.out());
  }
}
