package org.edl.scheduler.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.edl.scheduler.core.policy.Allocations;
import org.edl.scheduler.core.policy.ClusterPolicy;
import org.edl.scheduler.core.policy.FairSharePolicy;
import org.edl.scheduler.core.policy.FifoPolicy;
import org.edl.scheduler.core.policy.PolicyJob;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.edl.scheduler.core.policy.TiresiasPolicy;
import org.junit.jupiter.api.Test;

class SimulatorTest {
  static final long T0 = 1_500_000_000L;

  static ThroughputModel linear() {
    TreeMap<Integer, Double> t = new TreeMap<>();
    t.put(1, 1.0);
    t.put(64, 64.0);
    return new ThroughputModel("linear", t, 64);
  }

  static Trace trace(TraceJob... jobs) {
    return new Trace("test", List.of(jobs), 0, 0);
  }

  static SimResult run(Trace t, ClusterPolicy p, int gpus, ScaleCosts costs) {
    ThroughputModel[] m = new ThroughputModel[t.jobs().size()];
    Arrays.fill(m, linear());
    return new Simulator(t, m, p, new SimConfig(gpus, 1, costs, true, 100), null).run();
  }

  @Test
  void tiresiasDemotesAJobAtFiveHundredGpuSecondsAndANewJobPreemptsIt() {
    // A (1 GPU, 1000 s) runs alone; at 500 s it has 500 GPU-s and drops to queue 1, so B (arrived
    // at 100 s, queue 0) takes the GPU until 600 s; A resumes and ends at 1100 s.
    Trace t = trace(new TraceJob(0, T0, 1000, 1, "u", null), new TraceJob(1, T0 + 100, 100, 1, "u", null));
    SimResult tiresias = run(t, new TiresiasPolicy(1, TiresiasParams.DEFAULT, false), 1, ScaleCosts.free());
    assertEquals(1100, tiresias.jobs().get(0).finishS(), 1e-6);
    assertEquals(1, tiresias.jobs().get(0).preemptions());
    assertEquals(500, tiresias.jobs().get(1).startS(), 1e-6);
    assertEquals(500, tiresias.jobs().get(1).jctS(), 1e-6);

    SimResult fifo = run(t, new FifoPolicy(1), 1, ScaleCosts.free());
    assertEquals(1000, fifo.jobs().get(0).finishS(), 1e-6);
    assertEquals(1000, fifo.jobs().get(1).jctS(), 1e-6);
    assertEquals(1100, fifo.makespanS(), 1e-6);
    assertEquals(1.0, fifo.meanUtilisation(), 1e-9);
  }

  @Test
  void theMakespanEndsWithTheLastJobNotWithAReviewLeftBehind() {
    // A (1 GPU, 100 s) alone under Tiresias, which reviews it when it would cross into queue 1 at
    // 500 GPU-s. A ends at 100 s, so that review is stale: the run is 100 s long, the GPU busy
    // all of it. (The clock used to run on to 500 s before dropping it: utilisation 0.2.)
    Trace t = trace(new TraceJob(0, T0, 100, 1, "u", null));
    SimResult r = run(t, new TiresiasPolicy(1, TiresiasParams.DEFAULT, false), 1, ScaleCosts.free());
    assertEquals(100, r.jobs().get(0).finishS(), 1e-6);
    assertEquals(100, r.makespanS(), 1e-6);
    assertEquals(1.0, r.meanUtilisation(), 1e-9);
    assertEquals(1.0, r.meanEfficiency(), 1e-9);
    String table = SimReport.summaryTable(List.of(r));
    assertTrue(table.contains("| avg JCT (s) |") && table.contains("| makespan (s) |"), table);
    assertTrue(table.contains("| tiresias | 1 | 1 | 100.00 | 100.00 | 100.00 | 100.0 | 100.0 | 100.0% | 100.0% |"), table);
  }

  @Test
  void durationsAreShownInTheLargestUnitTheyFillTwiceOver() {
    assertEquals(SimReport.Unit.S, SimReport.Unit.of(119));
    assertEquals(SimReport.Unit.MIN, SimReport.Unit.of(120));
    assertEquals(SimReport.Unit.MIN, SimReport.Unit.of(7199));
    assertEquals(SimReport.Unit.H, SimReport.Unit.of(7200));
    assertEquals(SimReport.Unit.D, SimReport.Unit.of(2 * 86400));
  }

  @Test
  void aResumeCostsTheMeasuredRestart() {
    Trace t = trace(new TraceJob(0, T0, 1000, 1, "u", null), new TraceJob(1, T0 + 100, 100, 1, "u", null));
    ScaleCosts costs = ScaleCosts.measured("edl");
    SimResult r = run(t, new TiresiasPolicy(1, TiresiasParams.DEFAULT, false), 1, costs);
    assertEquals(1100 + costs.restartS(), r.jobs().get(0).finishS(), 1e-6);
  }

  @Test
  void elasticJobsGrowIntoIdleGpusAndPayTheScaleCost() {
    // One 2-GPU job alone on 4 GPUs grows to its max of 4 (linear speed-up): 1000 s of work at
    // 2 GPUs takes 500 s at 4, plus the cost of the first scale-out from 2 to 4.
    Trace t = trace(new TraceJob(0, T0, 1000, 2, "u", null));
    SimResult free = run(t, new TiresiasPolicy(4, TiresiasParams.DEFAULT, true), 4, ScaleCosts.free());
    assertEquals(500, free.jobs().get(0).jctS(), 1e-6);
    ScaleCosts edl = ScaleCosts.measured("edl");
    SimResult paid = run(t, new TiresiasPolicy(4, TiresiasParams.DEFAULT, true), 4, edl);
    assertEquals(0, paid.jobs().get(0).scaleOps(), "it starts at 4: no scale operation");
    // Started straight at 4 GPUs: nothing to pay.
    assertEquals(500, paid.jobs().get(0).jctS(), 1e-6);
  }

  @Test
  void scaleOutCostsEdlLessThanStopResume() {
    // B arrives while A (2 GPUs, grown to 4) runs; A shrinks to 2 for B, and grows back when B ends.
    Trace t = trace(new TraceJob(0, T0, 1000, 2, "u", null), new TraceJob(1, T0 + 100, 100, 2, "u", null));
    SimResult edl = run(t, new TiresiasPolicy(4, TiresiasParams.DEFAULT, true), 4, ScaleCosts.measured("edl"));
    SimResult sr = run(t, new TiresiasPolicy(4, TiresiasParams.DEFAULT, true), 4, ScaleCosts.measured("stop-resume"));
    assertEquals(2, edl.jobs().get(0).scaleOps());
    assertEquals(2, sr.jobs().get(0).scaleOps());
    double edlLoss = edl.jobs().get(0).finishS();
    double srLoss = sr.jobs().get(0).finishS();
    assertTrue(srLoss - edlLoss > 20, "stop-resume " + srLoss + " vs edl " + edlLoss);
  }

  @Test
  void inRoundsAJobWaitsForTheNextRoundAfterAGpuFrees() {
    // FIFO on 1 GPU: A (100 s) from 0, B (100 s) arrives at 30 s. Event-driven, B starts when A
    // ends at 100 s; in 60 s rounds, at the first round after that, 120 s, and ends at 220 s.
    Trace t = trace(new TraceJob(0, T0, 100, 1, "u", null), new TraceJob(1, T0 + 30, 100, 1, "u", null));
    ThroughputModel[] m = {linear(), linear()};
    SimResult events = new Simulator(t, m, new FifoPolicy(1), new SimConfig(1, 1, ScaleCosts.free(), true, 100), null).run();
    assertEquals(100, events.jobs().get(1).startS(), 1e-6);
    SimResult rounds = new Simulator(t, m, new FifoPolicy(1), new SimConfig(1, 1, ScaleCosts.free(), true, 100, 60),
        null).run();
    assertEquals(0, rounds.jobs().get(0).startS(), 1e-6);
    assertEquals(120, rounds.jobs().get(1).startS(), 1e-6);
    assertEquals(220, rounds.jobs().get(1).finishS(), 1e-6);
    assertEquals(220, rounds.makespanS(), 1e-6);
  }

  @Test
  void aFirstStartAndAResumeCostWhatTheyAreSetTo() {
    // Tiresias' scene above (A 1000 s, B 100 s from 100 s) with a start costing 10 s and a resume
    // 5 s. A still reaches 500 GPU-s at 500 s (held GPUs count, paid or not) with 490 s of work
    // done; B starts then and ends at 500 + 10 + 100 = 610 s; A resumes, pays 5 s and ends at
    // 610 + 5 + 510 = 1125 s.
    Trace t = trace(new TraceJob(0, T0, 1000, 1, "u", null), new TraceJob(1, T0 + 100, 100, 1, "u", null));
    ScaleCosts costs = ScaleCosts.free().withStartAndRestart(10.0, 5.0);
    SimResult r = run(t, new TiresiasPolicy(1, TiresiasParams.DEFAULT, false), 1, costs);
    assertEquals(500, r.jobs().get(1).startS(), 1e-6);
    assertEquals(610, r.jobs().get(1).finishS(), 1e-6);
    assertEquals(1125, r.jobs().get(0).finishS(), 1e-6);
    // The GPU is held all 1125 s but trains 1000 + 100 of them: the starts and the resume are no
    // useful work (they counted as such until the bench cluster's replay showed it).
    assertEquals(1.0, r.meanUtilisation(), 1e-9);
    assertEquals(1100.0 / 1125, r.meanEfficiency(), 1e-9);
    double[] series = r.seriesEfficiency();
    assertEquals(0.9, series[0], 1e-9, "A's first 10 s of the first 100 s bucket paid its start");
    assertEquals(0.9, series[5], 1e-9, "B's start, 500-510 s");
    assertEquals(0.95, series[6], 1e-9, "A's resume, 610-615 s");
  }

  @Test
  void aResizeHoldKeepsAJobsSizeWhileItFits() {
    // A (2 GPUs, 1000 s) starts alone on 4 GPUs at twice its speed; B (2 GPUs, 100 s) arrives at
    // 100 s. Without a hold A gives B its extra 2 GPUs at once and grows back at 200 s: A has done
    // 200 + 100 s of work by then and ends at 200 + 700 / 2 = 550 s.
    Trace t = trace(new TraceJob(0, T0, 1000, 2, "u", null), new TraceJob(1, T0 + 100, 100, 2, "u", null));
    SimResult free = run(t, new TiresiasPolicy(4, TiresiasParams.DEFAULT, true), 4, ScaleCosts.free());
    assertEquals(100, free.jobs().get(1).startS(), 1e-6);
    assertEquals(550, free.jobs().get(0).finishS(), 1e-6);
    // Held 200 s after each start or resize: A keeps its 4 GPUs when B arrives. At 125 s A has 500
    // GPU-s and drops to queue 1, behind B: its 4 no longer fit, so it is resized to 2 as without
    // a hold (250 s of work done), and B starts. B ends at 225 s, but A, resized at 125 s, stays
    // at 2 until 325 s (450); then 550 s of work at twice the speed: it ends at 600 s.
    TiresiasParams hold = new TiresiasParams(new double[] {500, 10_000}, 0, 10, 0.5, 2, 200);
    SimResult held = run(t, new TiresiasPolicy(4, hold, true), 4, ScaleCosts.free());
    assertEquals(125, held.jobs().get(1).startS(), 1e-6);
    assertEquals(600, held.jobs().get(0).finishS(), 1e-6);
    assertEquals(2, held.jobs().get(0).scaleOps());
  }

  @Test
  void invariantsHoldOnEveryEventOfARandomTraceUnderEveryPolicy() {
    Random rnd = new Random(7);
    List<TraceJob> jobs = new ArrayList<>();
    int[] sizes = {1, 1, 1, 1, 2, 4, 8};
    long t = T0;
    for (int i = 0; i < 400; i++) {
      t += rnd.nextInt(120);
      jobs.add(new TraceJob(i, t, 1 + rnd.nextInt(5000), sizes[rnd.nextInt(sizes.length)], "u" + rnd.nextInt(3), null));
    }
    Trace trace = new Trace("random", jobs, 0, 0);
    var models = ModelAssigner.assign(trace, readProfiles(), 3);
    for (ClusterPolicy p : List.of(new FifoPolicy(16), new TiresiasPolicy(16, TiresiasParams.DEFAULT, false),
        new TiresiasPolicy(16, new TiresiasParams(new double[] {500, 10_000}, 2, 2, 0.5, 2), true),
        new FairSharePolicy(16, 0.5, java.util.Map.of()))) {
      SimResult r = new Simulator(trace, models, p, new SimConfig(16, 3, ScaleCosts.measured("edl"), true, 600), null).run();
      assertEquals(400, r.jobs().size(), p.name());
      assertTrue(r.meanUtilisation() > 0.3 && r.meanUtilisation() <= 1, p.name() + " " + r.meanUtilisation());
    }
    SimResult rounds = new Simulator(trace, models, new TiresiasPolicy(16, TiresiasParams.DEFAULT, true),
        new SimConfig(16, 3, ScaleCosts.measured("edl").withStartAndRestart(30.0, 60.0), true, 600, 300), null).run();
    assertEquals(400, rounds.jobs().size(), "in 300 s rounds");
    // As the RM runs it: every job here is elastic, so none is ever preempted, only scaled in.
    for (TiresiasParams params : List.of(TiresiasParams.DEFAULT, new TiresiasParams(new double[] {500, 10_000}, 2, 2, 0.5, 2))) {
      SimResult kept = new Simulator(trace, models, new TiresiasPolicy(16, params.withFloorsKept(true), true),
          new SimConfig(16, 3, ScaleCosts.measured("edl"), true, 600), null).run();
      assertEquals(400, kept.jobs().size(), "floors kept");
      assertEquals(0, kept.jobs().stream().mapToInt(SimResult.SimJobResult::preemptions).sum(), "floors kept");
      SimResult paperReading = new Simulator(trace, models, new TiresiasPolicy(16, params, true),
          new SimConfig(16, 3, ScaleCosts.measured("edl"), true, 600), null).run();
      assertTrue(paperReading.jobs().stream().mapToInt(SimResult.SimJobResult::preemptions).sum() > 0,
          "the paper's reading preempts elastic jobs on this trace");
    }
  }

  @Test
  void theCheckerCatchesAPolicyThatGivesMoreGpusThanTheClusterHas() {
    ClusterPolicy greedy = new ClusterPolicy() {
      @Override
      public String name() {
        return "greedy";
      }

      @Override
      public void arrived(PolicyJob job, double now) {
        pending.add(job);
      }

      final List<PolicyJob> pending = new ArrayList<>();

      @Override
      public void finished(PolicyJob job, double now) {}

      @Override
      public void schedule(double now, Allocations out) {
        pending.forEach(j -> out.set(j, j.requestedGpus()));
        pending.clear();
      }
    };
    Trace t = trace(new TraceJob(0, T0, 100, 2, "u", null), new TraceJob(1, T0, 100, 2, "u", null));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(t, greedy, 3, ScaleCosts.free()));
    assertTrue(e.getMessage().contains("free"), e.getMessage());
  }

  @Test
  void theCheckerCatchesAJobRunAboveItsMax() {
    // Elastic-Tiresias' bounds, but a policy that hands out one GPU more than the job's max.
    TiresiasPolicy bounds = new TiresiasPolicy(8, TiresiasParams.DEFAULT, true);
    ClusterPolicy tooMuch = new ClusterPolicy() {
      final List<PolicyJob> pending = new ArrayList<>();

      @Override
      public String name() {
        return "too-much";
      }

      @Override
      public void arrived(PolicyJob job, double now) {
        pending.add(job);
      }

      @Override
      public void finished(PolicyJob job, double now) {}

      @Override
      public void schedule(double now, Allocations out) {
        pending.forEach(j -> out.set(j, bounds.maxGpus(j) + 1));
        pending.clear();
      }

      @Override
      public int maxGpus(PolicyJob job) {
        return bounds.maxGpus(job);
      }
    };
    Trace t = trace(new TraceJob(0, T0, 100, 2, "u", null));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(t, tooMuch, 8, ScaleCosts.free()));
    assertTrue(e.getMessage().contains("runs outside [2, 4]"), e.getMessage());
  }

  static java.util.Map<String, ThroughputModel> readProfiles() {
    try {
      return ThroughputModel.readAll(SimTestData.profiles(), 64);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
