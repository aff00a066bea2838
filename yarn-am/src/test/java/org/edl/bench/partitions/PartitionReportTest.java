package org.edl.bench.partitions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** partitions.csv with the issue's columns, read back for a replot, and what "as promised" takes. */
class PartitionReportTest {
  @TempDir
  Path dir;

  private static PartitionRow row(long seed, String outcome, int counted, int expected, double heal) {
    return new PartitionRow(seed, "leader-followers@20.0/2.0s", outcome, true, true, true, counted, expected, heal,
        "note");
  }

  @Test
  void theCsvHasTheIssuesColumnsAndReadsBack() throws IOException {
    PartitionReport report = new PartitionReport(List.of(row(1, "SUCCEEDED", 0, 0, 1.25),
        row(2, "FAILED", 2, 1, Double.NaN)));
    Path csv = dir.resolve("partitions.csv");
    report.writeCsv(csv);
    List<String> lines = Files.readAllLines(csv);
    assertEquals("seed,schedule,outcome,single_leader,exactly_once,model_ok,failures_counted,failures_expected,"
        + "recovery_s_max", lines.get(0));
    assertEquals("1,leader-followers@20.0/2.0s,SUCCEEDED,true,true,true,0,0,1.25", lines.get(1));
    PartitionReport back = PartitionReport.readCsv(csv);
    assertEquals(2, back.rows().size());
    assertEquals(1.25, back.rows().get(0).healToTrainingSeconds());
    assertTrue(Double.isNaN(back.rows().get(1).healToTrainingSeconds()));
    assertEquals("2 run(s), 1 kept every promise; longest heal to training 1.25 s", back.summary());
    back.writeChart(dir.resolve("partitions.png"));
    assertTrue(Files.size(dir.resolve("partitions.png")) > 1000);
  }

  @Test
  void aFileOfAnotherBenchIsRefusedNamingWhatItShouldBe() throws IOException {
    Path csv = dir.resolve("chaos.csv");
    Files.writeString(csv, "seed,faults,outcome\n1,x,SUCCEEDED\n");
    IOException e = assertThrows(IOException.class, () -> PartitionReport.readCsv(csv));
    assertTrue(e.getMessage().contains("is not a partitions.csv"), e.getMessage());
  }

  @Test
  void asPromisedTakesTheExactFailuresAndAQuickReturnWhereNoProcessDied() {
    assertTrue(row(1, "SUCCEEDED", 0, 0, 4.9).asPromised());
    assertFalse(row(1, "SUCCEEDED", 0, 0, 5.1).asPromised(), "nobody died: training again within 5 s");
    assertTrue(row(1, "SUCCEEDED", 1, 1, 30).asPromised(), "a worker was lost: its recovery takes longer");
    assertFalse(row(1, "SUCCEEDED", 2, 1, 1).asPromised(), "one failure more than the partition costs");
    assertFalse(row(1, "SUCCEEDED", 0, 1, 1).asPromised(), "one fewer: the rule said otherwise");
    assertFalse(row(1, "FAILED", 0, 0, 1).asPromised());
  }
}
