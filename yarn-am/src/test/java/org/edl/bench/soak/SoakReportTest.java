package org.edl.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SoakReportTest {
  private static SoakSample sample(int ops, int amThreads, long hdfsFiles) {
    return new SoakSample(ops, amThreads, 200, 450, 50, 21, hdfsFiles, 17.5, 360, 150.5, 226, 30.5, ops / 10, 5, 4,
        ops * 100L);
  }

  @Test
  void writesTheIssuesColumnsFirstAndReadsBackWhatItWrote(@TempDir Path dir) throws Exception {
    List<SoakSample> samples = List.of(sample(0, 44, 12), sample(100, 48, 13), sample(200, 48, 13));
    Path csv = dir.resolve("soak.csv");
    new SoakReport(samples).writeCsv(csv);
    assertTrue(Files.readAllLines(csv).get(0).startsWith(
        "operations,am_threads,am_fds,cluster_threads,worker_threads_max,zk_nodes,hdfs_files,"));
    assertEquals(samples, SoakReport.readCsv(csv).samples());

    Path png = dir.resolve("charts/soak.png");
    new SoakReport(samples).writeChart(png);
    assertTrue(Files.size(png) > 1000);
  }

  @Test
  void aForeignFileIsRefusedNamingTheLine(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("soak.csv");
    Files.writeString(csv, SoakReport.CSV_HEADER + "\n1,2,3\n");
    IOException e = assertThrows(IOException.class, () -> SoakReport.readCsv(csv));
    assertTrue(e.getMessage().contains(":2:"), e.getMessage());
    Files.writeString(csv, "operations,threads\n");
    assertThrows(IOException.class, () -> SoakReport.readCsv(csv));
  }

  @Test
  void theTableLeavesOutTheStartAndGivesTheTrendPer100Operations() {
    List<SoakSample> samples = new ArrayList<>();
    samples.add(sample(0, 10, 12)); // the job's start: not steady state
    for (int ops = 100; ops <= 500; ops += 100) {
      samples.add(sample(ops, 40 + ops / 100, 13)); // one AM thread more per 100 operations
    }
    String table = new SoakReport(samples).table();
    assertTrue(table.contains("| AM threads | 41 | 45 | +1.00 |"), table);
    assertTrue(table.contains("| HDFS files | 13 | 13 | +0.00 |"), table);
    assertEquals(1.0, SoakReport.slopePer100(samples.subList(1, samples.size()), SoakSample::amThreads), 1e-9);
  }
}
