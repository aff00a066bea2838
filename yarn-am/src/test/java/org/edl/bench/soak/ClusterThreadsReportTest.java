package org.edl.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterThreadsReportTest {
  private static final StackTraceElement[] PARKED = {
      new StackTraceElement("java.util.concurrent.locks.LockSupport", "park", null, 1)};

  @Test
  void threadsArePooledByTheirNameWithoutNumbersAndOursByNameOrStack() {
    assertEquals("ApplicationMasterLauncher ##", ThreadCensus.poolOf("ApplicationMasterLauncher #12", PARKED));
    assertEquals("pool-#-thread-#", ThreadCensus.poolOf("pool-17-thread-3", PARKED));
    assertEquals(ThreadCensus.OURS, ThreadCensus.poolOf("edl-metrics-register", PARKED));
    assertEquals(ThreadCensus.OURS, ThreadCensus.poolOf("pool-3-thread-1", new StackTraceElement[] {PARKED[0],
        new StackTraceElement("org.edl.bench.BenchJob", "awaitFinished", null, 1)}));
    Map<String, Integer> now = ThreadCensus.take();
    assertTrue(now.values().stream().mapToInt(Integer::intValue).sum() >= 1, now.toString());
  }

  @Test
  void theTableShowsEachChangedPoolAndWhenItReachedItsLastValue(@TempDir Path dir) throws Exception {
    List<ClusterThreadsBench.Point> points = List.of(
        new ClusterThreadsBench.Point(0, Map.of("IPC Server handler # on #", 10, "LogAggregationService ##", 0)),
        new ClusterThreadsBench.Point(1, Map.of("IPC Server handler # on #", 10, "LogAggregationService ##", 2)),
        new ClusterThreadsBench.Point(2, Map.of("IPC Server handler # on #", 10, "LogAggregationService ##", 4)),
        new ClusterThreadsBench.Point(3, Map.of("IPC Server handler # on #", 10, "LogAggregationService ##", 4)));
    ClusterThreadsReport r = new ClusterThreadsReport(points);
    assertEquals(List.of("(edl)", "LogAggregationService ##"), r.changedPools());
    String table = r.table();
    assertTrue(table.contains("| LogAggregationService ## | 0 | 4 | 4 | 2 |"), table);
    assertTrue(table.contains("| (all) | 10 | 14 | 14 | 2 |"), table);
    assertTrue(table.contains("| (edl) | 0 | 0 | 0 | 0 |"), table);
    assertEquals("LogAggregationService ## +2", ClusterThreadsBench.changes(points.get(0), points.get(1)));

    assertEquals(List.of("(edl)", "LogAggregationService ##"), r.grownPools());
    r.writeCsv(dir.resolve("cluster-threads.csv"));
    assertEquals("jobs,pool,threads", Files.readAllLines(dir.resolve("cluster-threads.csv")).get(0));
    assertEquals(r.table(), ClusterThreadsReport.readCsv(dir.resolve("cluster-threads.csv")).table());
    r.writeChart(dir.resolve("cluster-threads.png"));
    assertTrue(Files.size(dir.resolve("cluster-threads.png")) > 1000);
  }
}
