package org.edl.scheduler.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.edl.scheduler.core.policy.ClusterPolicy;
import org.edl.scheduler.core.policy.FairSharePolicy;
import org.edl.scheduler.core.policy.FifoPolicy;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.edl.scheduler.core.policy.TiresiasPolicy;

/** The simulator's entry point: read the trace and profiles, run each policy, write the report. */
public final class Simulation {
  private Simulation() {}

  /** Runs every policy of {@code o}; writes the outputs under {@code o.out()} and a summary to {@code out}. */
  public static List<SimResult> run(SimOptions o, PrintStream out, PrintStream err) throws IOException {
    Trace trace = TraceReaders.read(o.trace(), o.skipBad());
    if (o.limitJobs() > 0) {
      trace = trace.prefix(o.limitJobs());
    }
    if (trace.skipped() > 0) {
      err.printf("edl simulate: skipped %d bad record(s) of %s%n", trace.skipped(), o.trace());
    }
    if (trace.notRun() > 0) {
      err.printf("edl simulate: %d job(s) in %s never ran (no attempts) and are left out%n", trace.notRun(), o.trace());
    }
    Map<String, ThroughputModel> models = ThroughputModel.readAll(o.profiles(), Math.max(512, 2 * o.clusterGpus()));
    ThroughputModel[] assigned = ModelAssigner.assign(trace, models, o.seed());
    List<SimResult> results = new ArrayList<>();
    for (String name : o.policies()) {
      ClusterPolicy policy = policy(name, o);
      SimConfig cfg = new SimConfig(o.clusterGpus(), o.seed(), o.costs(), o.checkInvariants(), o.sampleS(),
          o.intervalS());
      ProgressBar bar = o.progress() ? new ProgressBar(err, name, trace.jobs().size()) : null;
      SimResult r = new Simulator(trace, assigned, policy, cfg, bar).run();
      results.add(r);
    }
    if (o.out() != null) {
      new SimReport(trace, o, results).write(o.out());
    }
    out.print(SimReport.summaryTable(results));
    return results;
  }

  public static ClusterPolicy policy(String name, SimOptions o) {
    return name.equals("fair") ? new FairSharePolicy(o.clusterGpus(), o.fairMinFraction(), o.weights())
        : policy(name, o.clusterGpus(), o.tiresias());
  }

  /** A policy that needs no user weights: fifo, tiresias or elastic-tiresias. */
  public static ClusterPolicy policy(String name, int clusterGpus, TiresiasParams tiresias) {
    return switch (name) {
      case "fifo" -> new FifoPolicy(clusterGpus);
      case "tiresias" -> new TiresiasPolicy(clusterGpus, tiresias, false);
      case "elastic-tiresias" -> new TiresiasPolicy(clusterGpus, tiresias, true);
      default -> throw new IllegalArgumentException("policy '" + name + "': expected one of "
          + String.join(", ", SimOptions.POLICIES));
    };
  }
}
