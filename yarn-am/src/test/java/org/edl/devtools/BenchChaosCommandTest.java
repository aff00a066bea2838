package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.edl.bench.chaos.ChaosReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edl bench chaos}: flags wrong on their face are refused as usage errors (one line, exit
 * 2) before any cluster starts, and {@code --replot} redraws from a CSV without one.
 */
class BenchChaosCommandTest {
  @TempDir
  Path dir;

  @Test
  void badValuesAreRefusedNamingTheFlag() {
    ToolRun.of("bench", "chaos", "--seeds", "0").assertUsageError("--seeds=0", "at least 1");
    ToolRun.of("bench", "chaos", "--workers", "9").assertUsageError("--workers=9", "at most 7");
    ToolRun.of("bench", "chaos", "--workers", "1").assertUsageError("--workers=1", "at least 2");
    ToolRun.of("bench", "chaos", "--steps", "0").assertUsageError("--steps=0");
    ToolRun.of("bench", "chaos", "--max-worker-failures", "-1").assertUsageError("--max-worker-failures=-1");
    ToolRun.of("bench", "chaos", "--checkpoint-every", "0").assertUsageError("--checkpoint-every=0");
    ToolRun.of("bench", "chaos", "--seeds", "many").assertUsageError("--seeds", "many");
    ToolRun.of("bench", "chaos", "--replot", dir.resolve("none.csv").toString()).assertUsageError("--replot=", "no such file");
  }

  @Test
  void aForeignCsvIsRefusedForReplot() throws Exception {
    Path csv = dir.resolve("recovery.csv");
    Files.writeString(csv, "mode,recovery_s\nconsistent,1.0\n");
    ToolRun.of("bench", "chaos", "--replot", csv.toString()).assertUsageError("--replot=", "not a chaos.csv");
  }

  @Test
  void replotRedrawsTheChartFromTheCsv() throws Exception {
    Path csv = dir.resolve("old/chaos.csv");
    Files.createDirectories(csv.getParent());
    Files.writeString(csv, ChaosReport.CSV_HEADER + "\n1,kill-worker@21.0,SUCCEEDED,900,900,true,true,12.50\n"
        + "2,kill-am@30.0,FAILED,400,900,false,false,NaN\n");
    Path out = dir.resolve("new");
    ToolRun r = ToolRun.of("bench", "chaos", "--replot", csv.toString(), "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.size(out.resolve("chaos.png")) > 0);
    assertEquals(Files.readString(csv), Files.readString(out.resolve("chaos.csv")));
  }
}
