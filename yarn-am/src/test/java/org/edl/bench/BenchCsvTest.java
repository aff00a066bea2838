package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmarks' CSVs: the committed ones read back and are written again byte for byte. */
class BenchCsvTest {
  private static final Path COMMITTED = Path.of("..", "docs", "benchmarks");

  @TempDir
  Path dir;

  @Test
  void theCommittedScalingCsvsReplotToTheSameBytes() throws IOException {
    for (String name : List.of("scaling.csv", "scaling-loaded.csv")) {
      Path again = dir.resolve(name);
      ScalingReport.readCsv(COMMITTED.resolve(name)).writeCsv(again);
      assertEquals(Files.readString(COMMITTED.resolve(name)), Files.readString(again), name);
    }
  }

  @Test
  void theCommittedRecoveryAndStragglerCsvsAreWrittenAsBefore() throws IOException {
    Path recovery = COMMITTED.resolve("recovery.csv");
    List<RecoveryBench.Result> results = new ArrayList<>();
    List<BenchCsv.Row> rows = BenchCsv.read(recovery);
    assertEquals(RecoveryReport.CSV_HEADER, String.join(",", rows.get(0).fields()));
    for (BenchCsv.Row r : rows.subList(1, rows.size())) {
      String s = recovery.toString();
      results.add(new RecoveryBench.Result(r.get(0), RecoveryBench.Fault.of(r.get(1)),
          new RecoveryAnalysis.Cost(BenchCsv.number(s, r, 2, "recovery_s"),
          BenchCsv.whole(s, r, 6, "last_step_before"), BenchCsv.whole(s, r, 7, "first_step_after"),
          BenchCsv.whole(s, r, 3, "steps_redone"), BenchCsv.whole(s, r, 8, "workers_after"),
          BenchCsv.number(s, r, 5, "batch_s"), BenchCsv.number(s, r, 4, "lost_gpu_s"))));
    }
    new RecoveryReport(results).writeCsv(dir.resolve("recovery.csv"));
    assertEquals(Files.readString(recovery), Files.readString(dir.resolve("recovery.csv")));

    Path stragglers = COMMITTED.resolve("stragglers.csv");
    List<BenchCsv.Row> s = BenchCsv.read(stragglers);
    String f = stragglers.toString();
    StragglerBench.Result r = new StragglerBench.Result(16, "cifar10", 0.75, 10, 1.0,
        BenchCsv.number(f, s.get(2), 1, "throughput_ratio"), BenchCsv.number(f, s.get(3), 1, "throughput_ratio"),
        10, 20, 21, BenchCsv.number(f, s.get(4), 2, "seconds"), BenchCsv.number(f, s.get(5), 2, "seconds"), 0.1,
        List.of());
    new StragglerReport(r).writeCsv(dir.resolve("stragglers.csv"));
    assertEquals(Files.readString(stragglers), Files.readString(dir.resolve("stragglers.csv")));
  }

  @Test
  void aBadRowNamesFileLineFieldAndValue() throws IOException {
    Path csv = dir.resolve("scaling.csv");
    Files.writeString(csv, ScalingReport.CSV_HEADER + "\n\nscale-out,edl,0.167,10.677,9.484\nscale-in,edl,x,0.6,0.1\n");
    IOException e = assertThrows(IOException.class, () -> ScalingReport.readCsv(csv));
    assertEquals(csv + ":4: field 'stop_s' = 'x': not a number", e.getMessage());
    Files.writeString(csv, ScalingReport.CSV_HEADER + "\nscale-out,edl,\"0.167,10.677,9.484\n");
    e = assertThrows(IOException.class, () -> ScalingReport.readCsv(csv));
    assertTrue(e.getMessage().startsWith(csv + ":2: "), e.getMessage());
  }

  @Test
  void aTimelineDetailWithACommaReadsWhole() throws IOException {
    List<BenchCsv.Row> rows = BenchCsv.read(new StringReader("event,step,start_ms,end_ms,detail\n"
        + "end,8,1040,1040,\"failed, then left\"\nend,9,1,2,old, unquoted\n"), "t.csv");
    assertEquals("failed, then left", Timelines.Row.parse(rows.get(1), "t.csv").detail());
    assertEquals("old, unquoted", Timelines.Row.parse(rows.get(2), "t.csv").detail());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Timelines.Row.parse(BenchCsv.read(new StringReader("batch,seven,1,2,\n"), "t.csv").get(0), "t.csv"));
    assertEquals("t.csv:1: field 'step' = 'seven': not a whole number", e.getMessage());
  }
}
