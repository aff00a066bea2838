package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bench cluster's figures, worked out by hand for a job the size of its readings. */
class ClusterReportTest {
  private static final long S = 1000;
  /** 50 samples/s on one GPU, 150 on its four (speed-up 3), 240 on eight. */
  private static final Map<Integer, Double> CURVE = Map.of(1, 50.0, 4, 150.0, 8, 240.0);

  private static ClusterPlan plan(int jobs) {
    List<ClusterPlan.PlannedJob> planned = new java.util.ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      planned.add(new ClusterPlan.PlannedJob(i, "m", i * 30 * S, 100, 100, 2.0, CURVE));
    }
    return new ClusterPlan(planned, 30 * S, 4);
  }

  /**
   * Submitted at 0, first reading at 10 s (step 10), step 100 at 60 s, finished at 70 s: 50 s for
   * 90 steps is 0.556 s a step, each worth 3 x 0.556 = 1.667 speed-up-seconds.
   */
  private static ClusterBench.Run oneJob(ClusterBench.Strategy strategy) {
    return new ClusterBench.Run(strategy, 0, List.of(new ClusterBench.JobRun(0, "m", "app_0", 0, 10 * S, 70 * S,
        "SUCCEEDED")), List.of(new ClusterBench.Sample(5 * S, 0, 0, 0), new ClusterBench.Sample(10 * S, 0, 4, 10),
            new ClusterBench.Sample(35 * S, 0, 4, 55), new ClusterBench.Sample(60 * S, 0, 4, 100)));
  }

  @Test
  void liveFiguresComeFromTheReadingsAtThePaceOfTheStaticRun() {
    ClusterBench.Run live = oneJob(ClusterBench.Strategy.STATIC);
    ClusterReport report = new ClusterReport(plan(1), live, 10);
    ClusterReport.Outcome o = report.addLive(live);
    assertEquals(70, o.avgJctS(), 1e-9);
    assertEquals(70, o.makespanS(), 1e-9);
    // 100 steps x 1.667 speed-up-seconds over 8 GPUs x 70 s.
    assertEquals(100 * (50.0 / 90) * 3 / (8 * 70), o.meanClusterEfficiency(), 1e-9);
    assertEquals(7, o.timeS().length);
    // From 20 to 30 s: 18 steps in 10 s at 3 per 0.556 s = speed-up 3 on 4 GPUs.
    assertEquals(3.0 / 8, o.clusterEfficiency()[2], 1e-9);
    assertEquals(0.75, o.perGpuEfficiency()[2], 1e-9, "the profile's per-GPU efficiency at 4: 150 / (4 x 50)");
    assertEquals(4, o.gpusBusy()[2], 1e-9);
    assertEquals(0, o.clusterEfficiency()[6], 1e-9, "after its last step the job only ends");
  }

  @Test
  void theSimulatorReplaysTheStaticRunAndAnUncontendedJobTakesWhatItTookLive() {
    ClusterBench.Run live = oneJob(ClusterBench.Strategy.STATIC);
    ClusterReport report = new ClusterReport(plan(1), live, 10);
    report.addLive(live);
    report.simulate();
    // Trained 50 s from its first reading plus the 10 steps before it (5.6 s); started 10 s
    // after its GPUs were free less those steps, and ended 10 s after its last.
    assertEquals(50 + 10 * 50.0 / 90, report.simInputs().durationS()[0], 1e-9);
    assertEquals(10 - 10 * 50.0 / 90 + 10, report.simInputs().startCostS(), 1e-9);
    Map<String, ClusterReport.Outcome> sim = new java.util.HashMap<>();
    report.outcomes().stream().filter(o -> o.runner().equals("sim")).forEach(o -> sim.put(o.strategy(), o));
    assertEquals(70, sim.get("static").avgJctS(), 1e-6);
    assertTrue(sim.get("elastic").avgJctS() < 70, "alone on 8 GPUs it grows: " + sim.get("elastic").avgJctS());
  }

  @Test
  void theLiveReadingsGoThroughTheirFilesUnchanged(@TempDir Path dir) throws Exception {
    ClusterBench.Run run = oneJob(ClusterBench.Strategy.ELASTIC);
    ClusterBench.writeRuns(List.of(run), dir.resolve("jobs.csv"), dir.resolve("samples.csv"));
    assertEquals(List.of(run), ClusterBench.readRuns(dir.resolve("jobs.csv"), dir.resolve("samples.csv")));
  }

  @Test
  void thePlanIsTheSameForEveryRunAndEachJobTrainsForAboutTheAskedTime() throws Exception {
    ClusterPlan a = ClusterPlan.draw(16, 30 * S, 4, 8, List.of("imagenet", "cifar10"), 1, 60);
    assertEquals(a, ClusterPlan.draw(16, 30 * S, 4, 8, List.of("imagenet", "cifar10"), 1, 60));
    assertEquals(16, a.jobs().size());
    assertTrue(a.jobs().stream().map(ClusterPlan.PlannedJob::model).distinct().count() == 2);
    for (ClusterPlan.PlannedJob j : a.jobs()) {
      assertEquals(j.index() * 30 * S, j.submitOffsetMs());
      double seconds = j.steps() * j.globalBatch() / j.throughputByGpus().get(4);
      assertEquals(60, seconds, 1, j.toString());
      assertEquals(8, j.throughputByGpus().size());
    }
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> ClusterPlan.draw(1, 0, 4, 8, List.of("bert"), 1, 60));
    assertTrue(e.getMessage().contains("models") && e.getMessage().contains("bert"), e.getMessage());
  }
}
