package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.edl.bench.Timelines.Row;
import org.junit.jupiter.api.Test;

class ScalingAnalysisTest {
  /** Batches of 100 ms back to back from {@code t0}, steps {@code from..to}. */
  private static List<Row> worker(long processStart, long from, long to, long t0, long endMs) {
    List<Row> rows = new ArrayList<>();
    rows.add(new Row("process", -1, processStart, processStart, ""));
    for (long s = from; s <= to; s++) {
      long start = t0 + (s - from) * 100;
      rows.add(new Row("batch", s, start, start + 100, ""));
    }
    rows.add(new Row("end", to + 1, endMs, endMs, ""));
    return rows;
  }

  @Test
  void scaleOutCostsTheBroadcastForOldWorkersAndTheStartUpOfTheNewcomer() {
    Map<String, List<Row>> w = new LinkedHashMap<>();
    // Steps 0..19 end at 100..2000; the switch after step 19 costs 300 ms; step 20 ends at 2400.
    for (String id : List.of("a", "b")) {
      List<Row> rows = new ArrayList<>(worker(0, 0, 19, 0, 5000));
      rows.removeIf(r -> r.event().equals("end"));
      rows.add(new Row("batch", 20, 2300, 2400, ""));
      w.put(id, rows);
    }
    w.put("c", List.of(new Row("process", -1, 1000, 1000, ""), new Row("registered", -1, 1400, 1400, "newcomer"),
        new Row("ready", -1, 1900, 1900, "v2"), new Row("batch", 20, 2300, 2400, "")));
    ScalingAnalysis analysis = new ScalingAnalysis(new Timelines(w));
    ScalingAnalysis.Cost cost = analysis.cost(1000, 2, 3, 1);
    assertEquals(new ScalingAnalysis.NewcomerStart(1, 0.4, 0.9, 1.3), analysis.newcomerStart(cost.step()));
    assertEquals(20, cost.step());
    assertEquals(0.3, cost.stopSeconds(), 1e-9);
    assertEquals(1.4, cost.endToEndSeconds(), 1e-9);
    // a and b lose 300 ms each; c was held from 1000 until its first batch at 2300.
    assertEquals(0.3 + 0.3 + 1.3, cost.lossGpuSeconds(), 1e-9);
  }

  @Test
  void stopResumeCountsStoppedWorkersUntilTheyEndAndRestartedOnesFromProcessStart() {
    Map<String, List<Row>> w = new LinkedHashMap<>();
    w.put("old1", worker(0, 0, 9, 0, 1500)); // last batch ends 1000, run ends 1500
    w.put("old2", worker(0, 0, 9, 0, 1600));
    w.put("new1", worker(2000, 10, 12, 5000, 9000)); // step 10 ends at 5100
    ScalingAnalysis.Cost cost = new ScalingAnalysis(new Timelines(w)).cost(500, 2, 1, 2);
    assertEquals(10, cost.step());
    assertEquals((5100 - 1000 - 100) / 1000.0, cost.stopSeconds(), 1e-9);
    assertEquals(4.6, cost.endToEndSeconds(), 1e-9);
    assertEquals(2 * (0.5 + 0.6 + 3.0), cost.lossGpuSeconds(), 1e-9);
  }

  /**
   * Each member of a switch writes a row for it, with its own role and clock: the analysis lists
   * the switch once, from its earliest start, in the order the switches began. The third member
   * was killed outright and wrote no timeline, so the batches count 2 workers throughout; the
   * switches that brought it in and took it out are listed all the same, from a's and b's rows.
   */
  @Test
  void eachSwitchIsListedOnceFromWhicheverMembersRecordedIt() {
    Map<String, List<Row>> w = new LinkedHashMap<>();
    List<Row> a = new ArrayList<>(worker(0, 0, 29, 0, 5000));
    a.add(new Row("switch", 9, 1010, 1200, "broadcaster 2->3"));
    a.add(new Row("switch", 19, 2300, 2400, "survivor 3->2"));
    a.add(new Row("order", -1, 2000, 2000, "switch epoch 1 v3"));
    w.put("a", a);
    List<Row> b = new ArrayList<>(worker(0, 0, 29, 0, 5000));
    b.add(new Row("switch", 9, 1000, 1200, "broadcaster 2->3"));
    b.add(new Row("switch", 19, 2300, 2400, "survivor 3->2"));
    w.put("b", b);
    ScalingAnalysis analysis = new ScalingAnalysis(new Timelines(w));
    assertEquals(List.of(new ScalingAnalysis.Switch(9, 2, 3, 1000), new ScalingAnalysis.Switch(19, 3, 2, 2300)),
        analysis.switches());
    assertEquals(0, analysis.stopSecondsAfter(9), 1e-9, "batches back to back");
    assertEquals(Double.NaN, analysis.stopSecondsAfter(29), "no step 30 trained");
  }

  @Test
  void aChangeThatNeverHappenedIsAnError() {
    Map<String, List<Row>> w = new LinkedHashMap<>();
    w.put("a", worker(0, 0, 9, 0, 1000));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> new ScalingAnalysis(new Timelines(w)).cost(0, 1, 2, 1));
    assertEquals(true, e.getMessage().contains("from 0: 1"), e.getMessage());
  }
}
