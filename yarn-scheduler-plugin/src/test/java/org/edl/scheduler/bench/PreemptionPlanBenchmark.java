package org.edl.scheduler.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.edl.scheduler.core.fair.ClusterSnapshot;
import org.edl.scheduler.core.fair.NodeState;
import org.edl.scheduler.core.fair.PendingRequest;
import org.edl.scheduler.core.fair.PreemptionPlan;
import org.edl.scheduler.core.fair.PreemptionPlanner;
import org.edl.scheduler.core.fair.RunningContainer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One preemption plan on a full cluster: 1,000 nodes of 100 GPUs, 100,000 one-GPU containers of
 * 900 users (each job guarantees its first 10), and 100 users who hold nothing and ask for 20
 * GPUs each: 2,000 requests, every one needing a victim. Demands 900 x ~111 and 100 x 20 give
 * the newcomers their 20, so the plan takes 2,000 extras.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PreemptionPlanBenchmark {
  static final int NODES = 1_000;
  static final int GPUS_PER_NODE = 100;
  static final int HOLDERS = 900;
  static final int STARVED = 100;

  private final PreemptionPlanner planner = new PreemptionPlanner();
  private ClusterSnapshot snapshot;

  @Setup
  public void setUp() {
    snapshot = snapshot();
    PreemptionPlan plan = planner.plan(snapshot);
    if (plan.victims().size() != STARVED * 20) {
      throw new IllegalStateException("expected 2000 victims, the plan has "
          + plan.victims().size());
    }
  }

  static ClusterSnapshot snapshot() {
    Random rnd = new Random(3);
    List<NodeState> nodes = new ArrayList<>();
    List<RunningContainer> containers = new ArrayList<>();
    int[] perUser = new int[HOLDERS];
    for (int n = 0; n < NODES; n++) {
      nodes.add(new NodeState("node" + n, 0));
      for (int g = 0; g < GPUS_PER_NODE; g++) {
        int u = rnd.nextInt(HOLDERS);
        int k = perUser[u]++;
        containers.add(new RunningContainer("c" + n + "-" + g, "job-u" + u, "u" + u, "node" + n,
            1, rnd.nextInt(3), k, k >= 10));
      }
    }
    List<PendingRequest> pending = new ArrayList<>();
    for (int s = 0; s < STARVED; s++) {
      for (int r = 0; r < 20; r++) {
        pending.add(new PendingRequest("r" + s + "-" + r, "new" + s, "job-new" + s, 0, 1000 + s, 1));
      }
    }
    return new ClusterSnapshot(0, Map.of(), nodes, containers, pending);
  }

  @Benchmark
  public PreemptionPlan plan() {
    return planner.plan(snapshot);
  }
}
