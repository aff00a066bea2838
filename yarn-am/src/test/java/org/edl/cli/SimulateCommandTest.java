package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code edl simulate} end to end on a small trace written here, with the shared profiles. */
class SimulateCommandTest {
  @TempDir
  Path dir;

  private static Path profiles() {
    return Path.of(System.getProperty("edl.profiles.dir",
        "../container-worker/src/main/resources/org/edl/worker/emulated/profiles"));
  }

  private int run(ByteArrayOutputStream err, String... args) {
    return EdlCli.execute(args, new PrintStream(new ByteArrayOutputStream(), true),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void writesTheReportForEveryPolicy() throws Exception {
    StringBuilder csv = new StringBuilder("timestamp,duration,num_gpus,gpu_time,cluster\n");
    for (int i = 0; i < 60; i++) {
      csv.append(String.format("2017-10-09 07:%02d:00,%d,%d,0,%s%n", i, 300 + 97 * i, 1 << (i % 3), i % 2 == 0 ? "a" : "b"));
    }
    Path trace = dir.resolve("t.csv");
    Files.writeString(trace, csv);
    Path out = dir.resolve("out");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = run(err, "simulate", "--trace", trace.toString(), "--profiles", profiles().toString(), "--out",
        out.toString(), "--cluster-gpus", "8", "--check-invariants", "--no-progress");
    assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
    for (String f : new String[] {"jobs.csv", "summary.csv", "report.html", "jct-cdf.png", "utilisation.png",
        "efficiency.png", "fair-user-gpus.png"}) {
      assertTrue(Files.size(out.resolve(f)) > 0, f);
    }
    assertEquals(1 + 4 * 60, Files.readAllLines(out.resolve("jobs.csv")).size());
    assertEquals(5, Files.readAllLines(out.resolve("summary.csv")).size());
  }

  @Test
  void aBadLineIsAUsageErrorNamingFileLineFieldAndValue() throws Exception {
    Path trace = dir.resolve("bad.csv");
    Files.writeString(trace, "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:00:00,ten,1,0,a\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = run(err, "simulate", "--trace", trace.toString(), "--profiles", profiles().toString(), "--out",
        dir.resolve("o").toString(), "--no-progress");
    assertEquals(EdlCli.USAGE, rc);
    String msg = err.toString(StandardCharsets.UTF_8);
    assertTrue(msg.contains(trace + ":2: field 'duration' = 'ten'"), msg);
  }

  @Test
  void anUnknownPolicyIsAUsageError() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = run(err, "simulate", "--trace", "x.csv", "--out", dir.toString(), "--policy", "sjf", "--no-progress");
    assertEquals(EdlCli.USAGE, rc);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("policy 'sjf'"), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void badQueueLimitsAreAUsageErrorNamingTheFlag() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = run(err, "simulate", "--trace", "x.csv", "--out", dir.toString(), "--queue-limits", "500,100",
        "--no-progress");
    assertEquals(EdlCli.USAGE, rc);
    String msg = err.toString(StandardCharsets.UTF_8);
    assertTrue(msg.startsWith("edl: queue-limits=500,100: "), msg);
    ByteArrayOutputStream hold = new ByteArrayOutputStream();
    assertEquals(EdlCli.USAGE, run(hold, "simulate", "--trace", "x.csv", "--out", dir.toString(), "--resize-hold-s",
        "-1", "--no-progress"));
    assertTrue(hold.toString(StandardCharsets.UTF_8).startsWith("edl: resize-hold-s=-1.0: "),
        hold.toString(StandardCharsets.UTF_8));
    ByteArrayOutputStream restart = new ByteArrayOutputStream();
    assertEquals(EdlCli.USAGE, run(restart, "simulate", "--trace", "x.csv", "--out", dir.toString(),
        "--restart-cost-s", "-5", "--no-progress"));
    assertTrue(restart.toString(StandardCharsets.UTF_8).startsWith("edl: restart-cost-s=-5.0: "),
        restart.toString(StandardCharsets.UTF_8));
  }

  @Test
  void theHelpListsNoClusterOptionsAndNamesTheModelColumn() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = EdlCli.execute(new String[] {"simulate", "--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true));
    assertEquals(0, rc);
    String help = out.toString(StandardCharsets.UTF_8);
    for (String clusterOnly : new String[] {"--conf", "--principal", "--keytab"}) {
      assertFalse(help.contains(clusterOnly), clusterOnly + " in:\n" + help);
    }
    assertTrue(help.contains("model or application column"), help);
  }
}
