package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.edl.bench.Timelines.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransientAnalysisTest {
  private static final int BATCH = 10;

  /** Worker {@code id} trains steps {@code from..to}, each ending {@code gapMs} after the one before, from {@code t0}. */
  private static void trains(Map<String, List<Row>> w, String id, long from, long to, long t0, long gapMs) {
    List<Row> rows = w.computeIfAbsent(id, k -> new ArrayList<>());
    for (long s = from; s <= to; s++) {
      long end = t0 + (s - from + 1) * gapMs;
      rows.add(new Row("batch", s, end - gapMs, end, ""));
    }
  }

  /**
   * Two workers train steps 0..19 at 100 ms a step (end at 100..2000), a third joins after a
   * 500 ms switch and the three train steps 20..39 at 120 ms (end at 2620..4900).
   */
  private static TransientAnalysis growing() {
    Map<String, List<Row>> w = new LinkedHashMap<>();
    trains(w, "a", 0, 19, 0, 100);
    trains(w, "b", 0, 19, 0, 100);
    for (String id : List.of("a", "b", "c")) {
      trains(w, id, 20, 39, 2500, 120);
    }
    return new TransientAnalysis(new Timelines(w), BATCH);
  }

  @Test
  void samplesAreEachStepsMembersTimesTheBatchByWhenTheLastOneEnded() {
    TransientAnalysis a = growing();
    assertEquals(20 * 2 * BATCH + 20 * 3 * BATCH, a.samples(0, 10_000));
    assertEquals(10 * 2 * BATCH, a.samples(1100, 2100), "steps 10..19 end at 1100..2000");
    assertEquals(3 * BATCH, a.samples(2600, 2700), "step 20 ends at 2620");
    assertEquals(19 * 2 * BATCH / 2.0, a.throughput(0, 2000), 1e-9, "steps 0..18 end before 2000 ms");
  }

  @Test
  void steadyGapsLeaveOutTheStepsRightAfterAChange() {
    Map<Integer, List<Long>> gaps = growing().steadyGaps();
    assertEquals(20 - TransientAnalysis.SETTLE_STEPS, gaps.get(2).size());
    assertTrue(gaps.get(2).stream().allMatch(g -> g == 100));
    assertEquals(20 - TransientAnalysis.SETTLE_STEPS, gaps.get(3).size(), "the switch's 620 ms gap is not steady");
    assertTrue(gaps.get(3).stream().allMatch(g -> g == 120));
    Map<Integer, Double> steady = TransientAnalysis.steadyThroughput(List.of(growing()), BATCH);
    assertEquals(2 * BATCH / 0.1, steady.get(2), 1e-9);
    assertEquals(3 * BATCH / 0.12, steady.get(3), 1e-9);
  }

  @Test
  void idealMixesTheSteadyRatesByTheIdleShareAndBreakEvenIsWhatALossBuysBack() {
    assertEquals(150, TransientAnalysis.ideal(100, 200, 30, 60), 1e-9);
    assertEquals(100, TransientAnalysis.ideal(100, 200, 0, 60), 1e-9);
    // A cycle that lost 1000 samples pays back at 50 samples/s more in 20 s of idle GPUs.
    assertEquals(20, TransientAnalysis.breakEvenIdleSeconds(1000, 100, 150), 1e-9);
    assertEquals(Double.POSITIVE_INFINITY, TransientAnalysis.breakEvenIdleSeconds(1000, 100, 100));
  }

  @Test
  void theReportComparesEachModeWithIdealAndItsFiguresComeBackFromTheirCsv(@TempDir Path dir) throws Exception {
    TransientAnalysis edl = growing();
    // Window 0..5000 ms, GPUs idle from 2000 on: Ideal is 200 samples/s, then 250.
    TransientBench.Run run = new TransientBench.Run(1, TransientBench.Mode.EDL, 0, 5000,
        List.<long[]>of(new long[] {2000, 5000}), edl);
    TransientReport report = TransientReport.of(List.of(run), 3, 1, 2, BATCH);
    TransientReport.Result r = report.results().get(0);
    assertEquals(200, r.base(), 1e-9);
    assertEquals(250, r.grown(), 1e-9);
    assertEquals(230, r.idealSamplesPerS(), 1e-9);
    assertEquals((40 * BATCH + 60 * BATCH) / 5.0, r.samplesPerS(), 1e-9);
    assertEquals((230 * 5 - 1000) / 50.0, r.breakEvenIdleS(), 1e-9, "150 samples lost, 50 samples/s more when grown");

    report.writeCsv(dir.resolve("transient.csv"));
    assertEquals(List.of(TransientReport.CSV_HEADER, String.format(java.util.Locale.ROOT, "1,3,edl,%.4f", r.ratio())),
        Files.readAllLines(dir.resolve("transient.csv")));
    report.writeRunsCsv(dir.resolve("runs.csv"));
    TransientReport back = TransientReport.readRunsCsv(dir.resolve("runs.csv"));
    assertEquals(r.ratio(), back.results().get(0).ratio(), 1e-3);
    back.writeChart(dir.resolve("transient.png"), "test");
    assertTrue(Files.size(dir.resolve("transient.png")) > 1000);
    assertTrue(back.table().contains("| 1 | 3 | edl |"), back.table());
  }

  /** A job that stopped growing short of all idle GPUs is held to the largest size it ran at. */
  @Test
  void idealFallsBackToTheLargestSizeTheJobRanAtWithTheIdleGpus() {
    TransientBench.Run run = new TransientBench.Run(2, TransientBench.Mode.EDL, 0, 5000,
        List.<long[]>of(new long[] {2000, 5000}), growing());
    TransientReport.Result r = TransientReport.of(List.of(run), 3, 1, 2, BATCH).results().get(0);
    assertEquals(250, r.grown(), 1e-9, "3 workers of the 4 it could have had");
  }
}
