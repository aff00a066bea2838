package org.edl.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.edl.job.InvalidInputException;
import org.edl.scheduler.core.policy.TiresiasParams;
import org.edl.scheduler.sim.SimOptions;
import org.edl.scheduler.sim.Simulation;
import org.edl.scheduler.sim.TraceFormatException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code edl simulate}: the trace-driven simulator (org.edl.scheduler.sim) over the same policy
 * classes the ResourceManager plugin runs. Only flags are parsed here.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
    description = "Replay a job trace through scheduling policies on a simulated clock; writes jobs.csv,"
        + " summary.csv, charts and report.html.")
public final class SimulateCommand implements Callable<Integer> {
  @Option(names = "--trace", required = true, description = "Philly CSV (timestamp,duration,num_gpus,...,cluster;"
      + " an optional model or application column names each job's model, else one is drawn with --seed)"
      + " or Philly cluster_job_log JSON.")
  Path trace;
  @Option(names = "--profiles", description = "Directory of <model>/placements.csv (default: the"
      + " measured profiles in this checkout, container-worker/src/main/resources/org/edl/worker/emulated/profiles).")
  Path profiles;
  @Option(names = "--policy", split = ",", defaultValue = "fifo,tiresias,elastic-tiresias,fair",
      description = "Policies to run (default: ${DEFAULT-VALUE}).")
  List<String> policies;
  @Option(names = "--out", required = true, description = "Output directory.")
  Path out;
  @Option(names = "--cluster-gpus", defaultValue = "2490",
      description = "GPUs in the cluster (default: ${DEFAULT-VALUE}, Philly's 552 machines).")
  int clusterGpus;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of each job's model (default: ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--scaling", defaultValue = "edl",
      description = "Cost of a scale operation: edl or stop-resume (default: ${DEFAULT-VALUE}).")
  String scaling;
  @Option(names = "--skip-bad", description = "Skip bad trace records and report how many.")
  boolean skipBad;
  @Option(names = "--check-invariants", description = "Check the invariants after every event (slower).")
  boolean check;
  @Option(names = "--sample-s", defaultValue = "3600",
      description = "Time-series bucket, simulated seconds (default: ${DEFAULT-VALUE}).")
  double sampleS;
  @Option(names = "--queue-limits", split = ",", defaultValue = "500,10000",
      description = "2D-LAS queue limits in GPU-s (default: ${DEFAULT-VALUE}).")
  double[] queueLimits;
  @Option(names = "--starvation-knob", defaultValue = "0",
      description = "Promote a job waiting executed-time x knob to the top queue; 0 = off (default: ${DEFAULT-VALUE}).")
  double starvation;
  @Option(names = "--waiting-threshold", defaultValue = "10",
      description = "Elastic-Tiresias N (default: ${DEFAULT-VALUE}).")
  int waitingThreshold;
  @Option(names = "--min-fraction", defaultValue = "0.5",
      description = "r: a job may run on ceil(r x requested) GPUs, Elastic-Tiresias and fair (default: ${DEFAULT-VALUE}).")
  double minFraction;
  @Option(names = "--max-factor", defaultValue = "2",
      description = "Elastic-Tiresias jobs grow to this x requested (default: ${DEFAULT-VALUE}).")
  double maxFactor;
  @Option(names = "--interval", defaultValue = "0", paramLabel = "S", description = "Decide in rounds every S simulated"
      + " seconds, as Tiresias' simulator does; 0 = at every arrival, completion and review (default: ${DEFAULT-VALUE}).")
  double intervalS;
  @Option(names = "--start-cost-s", paramLabel = "S", description = "Seconds a job loses when it first starts"
      + " (default: 0; the trace's durations include start-up).")
  Double startCostS;
  @Option(names = "--restart-cost-s", paramLabel = "S", description = "Seconds a job loses when it resumes after"
      + " preemption (default: the measured restart, 22.57).")
  Double restartCostS;
  @Option(names = "--resize-hold-s", defaultValue = "0", description = "Elastic-Tiresias hysteresis: a job started or"
      + " resized less than this many simulated seconds ago keeps its size while it fits; 0 = off (default: ${DEFAULT-VALUE}).")
  double resizeHoldS;
  @Option(names = "--keep-elastic-floors", description = "Elastic-Tiresias as the ResourceManager runs it: a running"
      + " elastic job that Tiresias passes over keeps its floor (ceil(r x requested)) instead of being preempted, and"
      + " the GPUs it keeps go to nobody else (default: preempted, the paper's reading).")
  boolean keepElasticFloors;
  @Option(names = "--weight", description = "Fair-share weight of a user, USER=W (repeatable; default 1).")
  Map<String, Double> weights = new LinkedHashMap<>();
  @Option(names = "--limit-jobs", defaultValue = "0", description = "Only the first N jobs (default: all).")
  int limitJobs;
  @Option(names = "--no-progress", description = "No progress bar on stderr.")
  boolean noProgress;

  @Override
  public Integer call() throws Exception {
    checkPolicyFlags();
    try {
      SimOptions o = new SimOptions(trace, profiles == null ? defaultProfiles() : profiles, policies, out,
          clusterGpus, seed, scaling, skipBad, check, sampleS,
          new TiresiasParams(queueLimits, starvation, waitingThreshold, minFraction, maxFactor, resizeHoldS,
              keepElasticFloors), minFraction,
          weights, limitJobs, !noProgress, intervalS, startCostS, restartCostS);
      Simulation.run(o, System.out, System.err);
      System.out.println("Wrote " + out.resolve("report.html"));
      return 0;
    } catch (TraceFormatException e) {
      throw new InvalidInputException("trace", trace, e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("simulate", String.join(",", policies), e.getMessage());
    }
  }

  /** The policy parameters, each refused naming its own flag (TiresiasParams would name none). */
  private void checkPolicyFlags() {
    for (int i = 0; i < queueLimits.length; i++) {
      if (!(queueLimits[i] > 0) || i > 0 && queueLimits[i] <= queueLimits[i - 1]) {
        throw new InvalidInputException("queue-limits", joined(queueLimits),
            "GPU-seconds, each above 0 and above the one before");
      }
    }
    if (starvation < 0) {
      throw new InvalidInputException("starvation-knob", starvation, "must be 0 (off) or more");
    }
    if (waitingThreshold < 0) {
      throw new InvalidInputException("waiting-threshold", waitingThreshold, "must be 0 or more");
    }
    if (!(minFraction > 0 && minFraction <= 1)) {
      throw new InvalidInputException("min-fraction", minFraction, "must be above 0 and at most 1");
    }
    if (!(maxFactor >= 1)) {
      throw new InvalidInputException("max-factor", maxFactor, "must be 1 or more");
    }
    nonNegative("interval", intervalS);
    nonNegative("start-cost-s", startCostS);
    nonNegative("restart-cost-s", restartCostS);
    if (!(resizeHoldS >= 0)) {
      throw new InvalidInputException("resize-hold-s", resizeHoldS, "must be 0 (off) or more");
    }
  }

  private static void nonNegative(String flag, Double seconds) {
    if (seconds != null && !(seconds >= 0)) {
      throw new InvalidInputException(flag, seconds, "seconds, 0 or more");
    }
  }

  private static String joined(double[] values) {
    StringBuilder b = new StringBuilder();
    for (double v : values) {
      b.append(b.length() == 0 ? "" : ",").append(v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v));
    }
    return b.toString();
  }

  /** The measured profiles in this checkout (the worker jar carries the same files as resources). */
  public static Path defaultProfiles() {
    String home = System.getProperty("edl.home", ".");
    return Path.of(home).toAbsolutePath().resolve("container-worker/src/main/resources/org/edl/worker/emulated/profiles");
  }

}
