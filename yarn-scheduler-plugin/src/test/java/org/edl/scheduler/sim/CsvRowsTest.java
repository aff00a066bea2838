package org.edl.scheduler.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.edl.scheduler.core.policy.FifoPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvRowsTest {
  @TempDir
  Path dir;

  @Test
  void rowsComeWithTheLineTheyStartOnPastBlankLinesAndQuotedLineBreaks() throws Exception {
    Path f = dir.resolve("t.csv");
    Files.writeString(f, " a , b\r\n1,2\r\n\r\n   \r\n\"x\ny\",\"3,4\"\n5\n");
    try (CsvRows csv = CsvRows.open(f)) {
      assertEquals(List.of(" a ", " b"), csv.header());
      assertEquals(0, csv.column("a"));
      assertEquals(1, csv.column("b"));
      CsvRows.Row r = csv.next();
      assertEquals(2, r.line());
      assertEquals("2", r.get("b"));
      r = csv.next();
      assertEquals(5, r.line());
      assertEquals("x\ny", r.get("a"));
      assertEquals("3,4", r.get(1));
      r = csv.next();
      assertEquals(7, r.line());
      assertEquals(1, r.size());
      assertNull(r.get("b"), "a short row has no such field");
      assertNull(csv.next());
    }
  }

  @Test
  void aQuoteLeftOpenNamesTheFileAndLine() throws Exception {
    Path f = dir.resolve("bad.csv");
    Files.writeString(f, "a,b\n1,2\n\"3,4\n");
    try (CsvRows csv = CsvRows.open(f)) {
      csv.next();
      TraceFormatException e = assertThrows(TraceFormatException.class, csv::next);
      assertTrue(e.getMessage().startsWith(f + ":3: "), e.getMessage());
    }
    Path empty = Files.writeString(dir.resolve("empty.csv"), "");
    TraceFormatException e = assertThrows(TraceFormatException.class, () -> CsvRows.open(empty));
    assertEquals(empty + ":1: field 'header' = '': empty file", e.getMessage());
  }

  /** summary.csv is committed under docs/benchmarks: the same bytes as the hand-written format gave. */
  @Test
  void theSummaryKeepsItsFormat() throws Exception {
    SimResult r = SimulatorTest.run(SimulatorTest.trace(
        new TraceJob(0, SimulatorTest.T0, 100, 1, "u1", null),
        new TraceJob(1, SimulatorTest.T0 + 5, 333, 1, "u2", "bert")), new FifoPolicy(1), 1, ScaleCosts.free());
    double[] s = r.sortedJct();
    String row = String.format(Locale.ROOT, "%s,%d,%s,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.4f,%.4f,%d,%.2f%n", r.policy(),
        r.clusterGpus(), r.mechanism(), s.length, r.averageJct(), SimResult.quantile(s, 0.5),
        SimResult.quantile(s, 0.95), SimResult.quantile(s, 0.99), r.makespanS(), r.meanUtilisation(),
        r.meanEfficiency(), r.events(), r.wallS());
    assertEquals("policy,cluster_gpus,scaling,jobs,avg_jct_s,median_jct_s,p95_jct_s,p99_jct_s,"
        + "makespan_s,mean_gpu_util,cluster_efficiency,events,wall_s\n" + row, SimReport.summaryCsv(List.of(r)));
  }
}
