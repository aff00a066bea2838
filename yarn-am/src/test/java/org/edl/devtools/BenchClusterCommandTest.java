package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.edl.bench.ClusterBench;
import org.edl.bench.ClusterPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edl bench cluster}: flags wrong on their face are refused (one line, exit 2) before any
 * cluster starts, and {@code --replot} redoes the figures and the simulation from the readings.
 */
class BenchClusterCommandTest {
  @TempDir
  Path dir;

  @Test
  void badValuesAreRefusedNamingTheFlag() {
    ToolRun.of("bench", "cluster", "--jobs", "0").assertUsageError("--jobs=0", "at least 1");
    ToolRun.of("bench", "cluster", "--gpus", "5").assertUsageError("--gpus=5", "twice its request");
    ToolRun.of("bench", "cluster", "--train-s", "0").assertUsageError("--train-s=0");
    ToolRun.of("bench", "cluster", "--strategies", "static,dynamic").assertUsageError("--strategies=dynamic",
        "static or elastic");
    ToolRun.of("bench", "cluster", "--models", "bert").assertUsageError("--models=bert");
  }

  @Test
  void replotRedoesTheFiguresAndTheSimulation() throws Exception {
    ClusterPlan.PlannedJob job = ClusterPlan.draw(1, 0, 4, 8, List.of("imagenet", "cifar10"), 1, 20).jobs().get(0);
    long steps = job.steps();
    List<ClusterBench.Run> runs = List.of(
        new ClusterBench.Run(ClusterBench.Strategy.STATIC, 0, List.of(new ClusterBench.JobRun(0, job.model(), "a1", 0,
            10_000, 40_000, "SUCCEEDED")), List.of(new ClusterBench.Sample(10_000, 0, 4, 1),
                new ClusterBench.Sample(35_000, 0, 4, steps))),
        new ClusterBench.Run(ClusterBench.Strategy.ELASTIC, 0, List.of(new ClusterBench.JobRun(0, job.model(), "a2", 0,
            10_000, 30_000, "SUCCEEDED")), List.of(new ClusterBench.Sample(10_000, 0, 4, 1),
                new ClusterBench.Sample(15_000, 0, 8, steps / 3), new ClusterBench.Sample(25_000, 0, 8, steps))));
    ClusterBench.writeRuns(runs, dir.resolve("cluster-live-jobs.csv"), dir.resolve("cluster-live-samples.csv"));
    ToolRun r = ToolRun.of("bench", "cluster", "--jobs", "1", "--train-s", "20", "--replot", dir.toString(),
        "--out", dir.resolve("out").toString());
    assertEquals(0, r.code(), r.err());
    List<String> csv = Files.readAllLines(dir.resolve("out/cluster.csv"));
    assertEquals("strategy,runner,jobs,avg_jct_s,makespan_s,mean_cluster_efficiency", csv.get(0));
    assertEquals(5, csv.size(), csv.toString());
    assertTrue(csv.get(1).startsWith("static,live,1,40.0,40.0,"), csv.toString());
    assertTrue(csv.get(2).startsWith("elastic,live,1,30.0,30.0,"), csv.toString());
    assertTrue(csv.get(3).startsWith("static,sim,1,40.0,"), "one uncontended job: as long as live: " + csv);
    assertTrue(Files.size(dir.resolve("out/cluster-efficiency.png")) > 0);
    assertTrue(r.out().contains("| elastic | live | 1 | 30.0 |"), r.out());
  }
}
