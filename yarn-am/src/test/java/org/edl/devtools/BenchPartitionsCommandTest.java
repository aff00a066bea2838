package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.edl.bench.partitions.PartitionReport;
import org.edl.bench.partitions.PartitionRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edl bench partitions}: flags wrong on their face are refused (one line, exit 2) before
 * any cluster starts, and {@code --replot} redraws the chart from a CSV.
 */
class BenchPartitionsCommandTest {
  @TempDir
  Path dir;

  @Test
  void badValuesAreRefusedNamingTheFlag() throws Exception {
    Path jar = Files.createFile(dir.resolve("edl-am.jar"));
    ToolRun.of("bench", "partitions", "--workers", "2", "--yarn-jar", jar.toString())
        .assertUsageError("--workers=2", "at least 3");
    ToolRun.of("bench", "partitions", "--seeds", "0", "--yarn-jar", jar.toString())
        .assertUsageError("--seeds=0", "at least 1");
    ToolRun.of("bench", "partitions", "--sync-timeout-ms", "10", "--yarn-jar", jar.toString())
        .assertUsageError("--sync-timeout-ms=10");
    ToolRun.of("bench", "partitions", "--yarn-jar", dir.resolve("none.jar").toString())
        .assertUsageError("--yarn-jar=", "no such file");
    ToolRun.of("bench", "partitions", "--replot", dir.resolve("none.csv").toString())
        .assertUsageError("--replot=", "no such file");
  }

  @Test
  void replotDrawsTheChartAndPrintsTheSummary() throws Exception {
    Path csv = dir.resolve("partitions.csv");
    new PartitionReport(List.of(new PartitionRow(1, "leader-followers@20.0/1.0s", "SUCCEEDED", true, true, true, 0,
        0, 2.5, ""))).writeCsv(csv);
    ToolRun r = ToolRun.of("bench", "partitions", "--replot", csv.toString(), "--out", dir.resolve("out").toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.size(dir.resolve("out/partitions.png")) > 0);
    assertTrue(r.out().contains("1 run(s), 1 kept every promise"), r.out());
  }
}
