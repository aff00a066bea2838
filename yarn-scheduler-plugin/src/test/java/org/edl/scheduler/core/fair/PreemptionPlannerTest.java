package org.edl.scheduler.core.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PreemptionPlannerTest {
  private final PreemptionPlanner planner = new PreemptionPlanner();

  /** An elastic job's workers, one GPU each, the first {@code min} guaranteed; start i. */
  private static List<RunningContainer> job(
      String job, String user, int priority, int min, String... nodes) {
    List<RunningContainer> cs = new ArrayList<>();
    for (int i = 0; i < nodes.length; i++) {
      cs.add(
          new RunningContainer(job + "-w" + i, job, user, nodes[i], 1, priority, i, i >= min));
    }
    return cs;
  }

  private static List<PendingRequest> asks(String job, String user, int n, int gpus) {
    List<PendingRequest> rs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rs.add(new PendingRequest(job + "-r" + i, user, job, 0, 1000, gpus));
    }
    return rs;
  }

  private static Set<String> ids(List<RunningContainer> cs) {
    Set<String> s = new HashSet<>();
    cs.forEach(c -> s.add(c.id()));
    return s;
  }

  /**
   * The scene: two nodes of 4 GPUs, bob's elastic job (min 2) holds all 8. Alice asks 4
   * one-GPU workers. Demands bob 8, alice 4; level 4: both deserve 4. Bob may give 8-4 = 4, all
   * extras (workers 2..7); alice's requests are placed one by one on the node where they cost
   * least, newest extras first: n2 holds w4..w7 (start 4..7), n1 holds w0..w3, of which only
   * w2, w3 are extras. Each request costs 1 GPU anywhere, so the tie goes to n1 (id): w3, w2;
   * then n1 has no extras left, so n2: w7, w6.
   */
  @Test
  void bobGivesAliceHerShareFromHisNewestExtras() {
    var bob = job("bob-job", "bob", 0, 2, "n1", "n1", "n1", "n1", "n2", "n2", "n2", "n2");
    var s =
        new ClusterSnapshot(
            5000,
            Map.of(),
            List.of(new NodeState("n1", 0), new NodeState("n2", 0)),
            bob,
            asks("alice-job", "alice", 4, 1));
    PreemptionPlan plan = planner.plan(s);
    assertEquals(Map.of("alice", 4L, "bob", 4L), plan.deserved());
    assertEquals(
        List.of("bob-job-w3", "bob-job-w2", "bob-job-w7", "bob-job-w6"),
        plan.victims().stream().map(RunningContainer::id).toList());
    assertEquals(4, plan.placements().size());
    assertEquals(5000, plan.createdAt());
  }

  /**
   * A job at its minimum is never taken below it: bob's job has min 8 and holds 8, so nothing
   * is an extra, and alice waits although she deserves 4.
   */
  @Test
  void aJobAtItsMinimumIsNeverPreempted() {
    var bob = job("bob-job", "bob", 0, 8, "n1", "n1", "n1", "n1", "n2", "n2", "n2", "n2");
    var s =
        new ClusterSnapshot(
            0, Map.of(), List.of(new NodeState("n1", 0), new NodeState("n2", 0)), bob,
            asks("alice-job", "alice", 4, 1));
    assertTrue(planner.plan(s).preemptsNothing());
  }

  /**
   * No plan unless the simulation places the request: alice asks one 4-GPU container and
   * deserves 4 (8 GPUs, demands 8 and 4). Bob's job (min 6) fills n2 with w0..w3 and n1 with
   * w4..w7, of which only w6, w7 are extras: at most 2 GPUs can be freed on any node, fewer than
   * 4, so nothing is placed and nothing preempted.
   */
  @Test
  void noPlanWhenTheSimulationCannotPlaceTheRequest() {
    var bob = job("bob-job", "bob", 0, 6, "n2", "n2", "n2", "n2", "n1", "n1", "n1", "n1");
    var s =
        new ClusterSnapshot(
            0, Map.of(), List.of(new NodeState("n1", 0), new NodeState("n2", 0)), bob,
            asks("alice-job", "alice", 1, 4));
    PreemptionPlan plan = planner.plan(s);
    assertTrue(plan.preemptsNothing());
    assertTrue(plan.placements().isEmpty());
  }

  /**
   * Free GPUs first: 4 GPUs free on n2 and bob holds n1's 4; alice asks 4 x 1 GPU, deserves 4
   * (8 GPUs, demands 4 and 4): all four fit on n2, nobody is preempted.
   */
  @Test
  void freeGpusAreUsedBeforeAnyonePreempted() {
    var bob = job("bob-job", "bob", 0, 0, "n1", "n1", "n1", "n1");
    var s =
        new ClusterSnapshot(
            0, Map.of(), List.of(new NodeState("n1", 0), new NodeState("n2", 4)), bob,
            asks("alice-job", "alice", 4, 1));
    PreemptionPlan plan = planner.plan(s);
    assertTrue(plan.preemptsNothing());
    assertEquals(4, plan.placements().size());
  }

  /**
   * Nobody is taken below its share: 6 GPUs on one node; bob holds 4 (all extras), carol 2
   * (extras), alice asks 3. Demands bob 4, carol 2, alice 3; level 2 takes carol's 2, the 4 left
   * split 2:2 -> alice 2, bob 2, carol 2. Bob can give 2, carol 0; alice is served only up to 2.
   * Victims: bob's two newest (start 3, 2).
   */
  @Test
  void victimsStayAtTheirShareAndTheStarvedGetNoMoreThanTheirs() {
    List<RunningContainer> running = new ArrayList<>();
    running.addAll(job("b", "bob", 0, 0, "n", "n", "n", "n"));
    running.addAll(job("c", "carol", 0, 0, "n", "n"));
    var s =
        new ClusterSnapshot(
            0, Map.of(), List.of(new NodeState("n", 0)), running, asks("a", "alice", 3, 1));
    PreemptionPlan plan = planner.plan(s);
    assertEquals(Map.of("alice", 2L, "bob", 2L, "carol", 2L), plan.deserved());
    assertEquals(Set.of("b-w3", "b-w2"), ids(plan.victims()));
    assertEquals(2, plan.placements().size());
  }

  /** Lower priority goes first on a node, before newer containers of higher priority. */
  @Test
  void lowerPriorityExtrasGoFirst() {
    List<RunningContainer> running = new ArrayList<>();
    running.add(new RunningContainer("hi-new", "j1", "bob", "n", 1, 5, 100, true));
    running.add(new RunningContainer("lo-old", "j2", "bob", "n", 1, 1, 1, true));
    var s =
        new ClusterSnapshot(
            0, Map.of(), List.of(new NodeState("n", 0)), running, asks("a", "alice", 1, 1));
    assertEquals(List.of("lo-old"), planner.plan(s).victims().stream().map(c -> c.id()).toList());
  }

  /**
   * Random clusters: every plan takes only extras, leaves every victim user at or above its
   * deserved share and every served user at or below, each placement fits its node in the
   * simulated order, and once applied, planning again preempts nothing (no ping-pong).
   */
  @Test
  void plansAreSafeAndStableOnRandomClusters() {
    Random rnd = new Random(7);
    for (int round = 0; round < 500; round++) {
      ClusterSnapshot s = randomCluster(rnd);
      PreemptionPlan plan = planner.plan(s);
      String ctx = "round " + round + " " + s + " -> " + plan;
      Map<String, Long> held = new HashMap<>();
      s.containers().forEach(c -> held.merge(c.user(), (long) c.gpus(), Long::sum));
      Map<String, Long> after = new HashMap<>(held);
      Map<String, Integer> free = new HashMap<>();
      s.nodes().forEach(n -> free.put(n.id(), n.freeGpus()));
      for (RunningContainer v : plan.victims()) {
        assertTrue(v.elasticExtra(), "took a guaranteed container: " + ctx);
        after.merge(v.user(), (long) -v.gpus(), Long::sum);
        free.merge(v.node(), v.gpus(), Integer::sum);
      }
      for (Placement p : plan.placements()) {
        after.merge(p.request().user(), (long) p.request().gpus(), Long::sum);
        free.merge(p.node(), -p.request().gpus(), Integer::sum);
      }
      free.forEach((n, f) -> assertTrue(f >= 0, "node " + n + " overfilled: " + ctx));
      Set<String> victimUsers = new HashSet<>();
      plan.victims().forEach(v -> victimUsers.add(v.user()));
      for (String u : victimUsers) {
        assertTrue(
            after.get(u) >= plan.deserved().getOrDefault(u, 0L), "victim below share: " + ctx);
      }
      for (Placement p : plan.placements()) {
        String u = p.request().user();
        assertTrue(after.get(u) <= plan.deserved().get(u), "served above share: " + ctx);
      }
      assertTrue(planner.plan(apply(s, plan)).preemptsNothing(), "ping-pong: " + ctx);
    }
  }

  private static ClusterSnapshot randomCluster(Random rnd) {
    int nodes = 1 + rnd.nextInt(5);
    int users = 1 + rnd.nextInt(5);
    List<NodeState> ns = new ArrayList<>();
    List<RunningContainer> cs = new ArrayList<>();
    int id = 0;
    for (int n = 0; n < nodes; n++) {
      int capacity = 1 + rnd.nextInt(8);
      int used = 0;
      while (used < capacity && rnd.nextInt(5) != 0) {
        int g = 1 + rnd.nextInt(Math.min(2, capacity - used));
        String user = "u" + rnd.nextInt(users);
        cs.add(
            new RunningContainer(
                "c" + id++, user + "-job" + rnd.nextInt(2), user, "n" + n, g, rnd.nextInt(3),
                rnd.nextInt(100), rnd.nextBoolean()));
        used += g;
      }
      ns.add(new NodeState("n" + n, capacity - used));
    }
    List<PendingRequest> ps = new ArrayList<>();
    int requests = rnd.nextInt(10);
    for (int i = 0; i < requests; i++) {
      String user = "u" + rnd.nextInt(users);
      ps.add(new PendingRequest("r" + i, user, user + "-new", rnd.nextInt(3), rnd.nextInt(100),
          1 + rnd.nextInt(3)));
    }
    Map<String, Double> weights = new HashMap<>();
    for (int u = 0; u < users; u++) {
      weights.put("u" + u, 0.5 + rnd.nextInt(4) * 0.5);
    }
    return new ClusterSnapshot(0, weights, ns, cs, ps);
  }

  /** The cluster after the plan: victims gone, placed requests running as guaranteed. */
  private static ClusterSnapshot apply(ClusterSnapshot s, PreemptionPlan plan) {
    Set<String> gone = ids(plan.victims());
    Map<String, Integer> free = new HashMap<>();
    s.nodes().forEach(n -> free.put(n.id(), n.freeGpus()));
    List<RunningContainer> cs = new ArrayList<>();
    for (RunningContainer c : s.containers()) {
      if (gone.contains(c.id())) {
        free.merge(c.node(), c.gpus(), Integer::sum);
      } else {
        cs.add(c);
      }
    }
    Set<String> placed = new HashSet<>();
    for (Placement p : plan.placements()) {
      PendingRequest r = p.request();
      placed.add(r.id());
      free.merge(p.node(), -r.gpus(), Integer::sum);
      cs.add(new RunningContainer("p-" + r.id(), r.job(), r.user(), p.node(), r.gpus(),
          r.priority(), 1000, false));
    }
    List<PendingRequest> ps =
        s.pending().stream().filter(r -> !placed.contains(r.id())).toList();
    List<NodeState> ns = new ArrayList<>();
    s.nodes().forEach(n -> ns.add(new NodeState(n.id(), free.get(n.id()))));
    return new ClusterSnapshot(s.takenAt(), s.weights(), ns, cs, ps);
  }
}
