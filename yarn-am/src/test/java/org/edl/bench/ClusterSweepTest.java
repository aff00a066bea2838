package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterSweepTest {
  private static final List<String> MODELS = List.of("imagenet", "cifar10");

  /**
   * With a job every ten minutes on 32 GPUs no job waits or shares: Static runs each on its 4 GPUs,
   * Elastic on 8 from its start, so the ratio is the profiles' speed-up worked out by hand:
   * mean(start + d / s8) over mean(start + d), whatever the queues.
   */
  @Test
  void anUncontendedClusterGivesEachJobsSpeedUpAtTwiceItsRequest() throws Exception {
    double start = 10;
    double pace = 1.0;
    List<ClusterSweep.Point> points = ClusterSweep.run(16, 4, MODELS, 1, List.of(32), List.of(600), List.of(120.0),
        pace, start);
    ClusterPlan plan = ClusterPlan.draw(16, 600_000, 4, ClusterReport.CLUSTER_GPUS, MODELS, 1, 120);
    double staticSum = 0;
    double elasticSum = 0;
    for (ClusterPlan.PlannedJob j : plan.jobs()) {
      double d = j.steps() * j.globalBatch() / j.throughputByGpus().get(4);
      staticSum += start + d;
      elasticSum += start + d * j.throughputByGpus().get(4) / j.throughputByGpus().get(8);
    }
    assertEquals(2, points.size());
    for (ClusterSweep.Point p : points) {
      assertEquals(0, p.elasticPreemptions(), p.toString());
      assertEquals(staticSum / 16, p.staticJctS(), 0.5, p.toString());
      assertEquals(elasticSum / staticSum, p.ratio(), 0.005, p.toString());
    }
  }

  /**
   * On 8 GPUs with jobs that each outgrow the first queue, the RM's queues demote the running
   * jobs and Elastic-Tiresias scales them in to their floors for every newcomer (as the RM does:
   * never a preemption), which costs Elastic what one queue does not.
   */
  @Test
  void demotionIsWhatMakesElasticTiresiasSlowerForEqualJobsUnderLoad(@TempDir Path dir) throws Exception {
    List<ClusterSweep.Point> points = ClusterSweep.run(16, 4, MODELS, 1, List.of(8), List.of(60), List.of(120.0),
        1.0, 10);
    ClusterSweep.Point rm = points.get(0);
    ClusterSweep.Point one = points.get(1);
    assertEquals("rm", rm.queues());
    assertEquals(0, rm.elasticPreemptions(), rm.toString());
    assertEquals(0, one.elasticPreemptions(), one.toString());
    assertTrue(rm.ratio() > one.ratio() + 0.01, rm + " against " + one);
    assertTrue(one.ratio() < 1, one.toString());

    Path csv = dir.resolve("cluster-sweep.csv");
    ClusterSweep.writeCsv(points, csv);
    List<String> lines = Files.readAllLines(csv);
    assertEquals(ClusterSweep.HEADER, lines.get(0));
    assertTrue(lines.get(1).startsWith("8,60,120,rm,"), lines.get(1));
    String table = ClusterSweep.table(points, 0.7);
    assertTrue(table.contains("| 8 | 120 | " + String.format(java.util.Locale.ROOT, "%.3f / %.3f |", rm.ratio(),
        one.ratio())), table);
  }
}
