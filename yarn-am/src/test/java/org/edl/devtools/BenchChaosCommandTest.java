package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.edl.bench.chaos.ChaosReport;
import org.edl.cli.EdlCli;
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
    usageError(run("bench", "chaos", "--seeds", "0"), "--seeds=0", "at least 1");
    usageError(run("bench", "chaos", "--workers", "9"), "--workers=9", "at most 7");
    usageError(run("bench", "chaos", "--workers", "1"), "--workers=1", "at least 2");
    usageError(run("bench", "chaos", "--steps", "0"), "--steps=0");
    usageError(run("bench", "chaos", "--max-worker-failures", "-1"), "--max-worker-failures=-1");
    usageError(run("bench", "chaos", "--checkpoint-every", "0"), "--checkpoint-every=0");
    usageError(run("bench", "chaos", "--seeds", "many"), "--seeds", "many");
    usageError(run("bench", "chaos", "--replot", dir.resolve("none.csv").toString()), "--replot=", "no such file");
  }

  @Test
  void aForeignCsvIsRefusedForReplot() throws Exception {
    Path csv = dir.resolve("recovery.csv");
    Files.writeString(csv, "mode,recovery_s\nconsistent,1.0\n");
    usageError(run("bench", "chaos", "--replot", csv.toString()), "--replot=", "not a chaos.csv");
  }

  @Test
  void replotRedrawsTheChartFromTheCsv() throws Exception {
    Path csv = dir.resolve("old/chaos.csv");
    Files.createDirectories(csv.getParent());
    Files.writeString(csv, ChaosReport.CSV_HEADER + "\n1,kill-worker@21.0,SUCCEEDED,900,900,true,true,12.50\n"
        + "2,kill-am@30.0,FAILED,400,900,false,false,NaN\n");
    Path out = dir.resolve("new");
    Result r = run("bench", "chaos", "--replot", csv.toString(), "--out", out.toString());
    assertEquals(0, r.code, r.err);
    assertTrue(Files.size(out.resolve("chaos.png")) > 0);
    assertEquals(Files.readString(csv), Files.readString(out.resolve("chaos.csv")));
  }

  private static void usageError(Result r, String... fragments) {
    assertEquals(EdlCli.USAGE, r.code, "exit code; stderr: " + r.err);
    String line = r.err.strip();
    assertFalse(line.contains("\n"), "one line only, got: " + r.err);
    assertTrue(line.startsWith("edl: "), line);
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
