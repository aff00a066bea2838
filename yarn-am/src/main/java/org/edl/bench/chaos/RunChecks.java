package org.edl.bench.chaos;

import java.util.List;
import java.util.OptionalLong;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.BatchRule;

/**
 * The checks every chaos run gets: what EDL promises of a job that lost no more workers than it
 * allows. {@link #OUTCOME}, {@link #STEPS} and {@link #FAILURES} go into the note when they
 * fail; {@link #MODEL} and {@link #SAMPLES} are also the {@code model_ok} and {@code samples_ok}
 * columns.
 */
public final class RunChecks {
  public static final String OUTCOME = "outcome";
  public static final String MODEL = "model";
  public static final String STEPS = "steps";
  public static final String SAMPLES = "samples";
  public static final String FAILURES = "failures";
  public static final String LEADERS = "leaders";

  private RunChecks() {}

  /** The checks, in the order their notes are printed. */
  public static List<RunCheck> standard() {
    return List.of(new Outcome(), new Model(), new Steps(), new Samples(), new Failures(), new SingleLeader());
  }

  /** The application ended SUCCEEDED. */
  static final class Outcome implements RunCheck {
    @Override
    public String name() {
      return OUTCOME;
    }

    @Override
    public Verdict check(RunEvidence run) {
      if ("SUCCEEDED".equals(run.outcome())) {
        return Verdict.ok("SUCCEEDED");
      }
      String d = run.diagnostics().strip();
      int eol = d.indexOf('\n');
      return Verdict.failed(run.outcome() + (d.isEmpty() ? "" : ": " + (eol < 0 ? d : d.substring(0, eol))));
    }
  }

  /**
   * At no moment did two leaders act: no member went by an order of a leadership after a newer one
   * had begun, and the model was written by the newest leadership of its time.
   */
  static final class SingleLeader implements RunCheck {
    @Override
    public String name() {
      return LEADERS;
    }

    @Override
    public Verdict check(RunEvidence run) {
      LeadershipLog log = run.leaderships();
      List<String> overlaps = log.overlaps();
      String seen = log.claimedAtMs().size() + " leadership(s) " + log.claimedAtMs().keySet() + ", "
          + log.acts().size() + " orders";
      return overlaps.isEmpty() ? Verdict.ok(seen) : Verdict.failed(seen + "; " + String.join("; ", overlaps));
    }
  }

  /** model.bin and metrics.json are in the output directory, neither empty. */
  static final class Model implements RunCheck {
    @Override
    public String name() {
      return MODEL;
    }

    @Override
    public Verdict check(RunEvidence run) {
      JobOutput o = run.output();
      String seen = JobOutput.MODEL_FILE + " " + size(o.modelBytes()) + ", " + JobOutput.METRICS_FILE + " "
          + size(o.metricsBytes()) + (o.problem().isEmpty() ? "" : " (" + o.problem() + ")");
      return o.modelBytes() > 0 && o.metricsBytes() > 0 && o.problem().isEmpty() ? Verdict.ok(seen)
          : Verdict.failed(seen);
    }

    private static String size(long bytes) {
      return bytes < 0 ? "missing" : bytes + " bytes";
    }
  }

  /** metrics.json says the job trained every step it was submitted with. */
  static final class Steps implements RunCheck {
    @Override
    public String name() {
      return STEPS;
    }

    @Override
    public Verdict check(RunEvidence run) {
      long wanted = run.job().spec().training().steps();
      OptionalLong steps = run.output().metric("steps");
      if (steps.isEmpty()) {
        return Verdict.failed("no steps in metrics.json; the AM last reported step " + run.lastReportedStep()
            + " of " + wanted);
      }
      String seen = "steps " + steps.getAsLong() + " of " + wanted;
      return steps.getAsLong() == wanted ? Verdict.ok(seen) : Verdict.failed(seen);
    }
  }

  /**
   * Consistent recovery counts no sample twice and none too few: samples_seen is the steps times
   * the global batch. Only for a fixed global batch (with a per-worker batch the count follows
   * the ring's size through the recoveries) and consistent recovery.
   */
  static final class Samples implements RunCheck {
    @Override
    public String name() {
      return SAMPLES;
    }

    @Override
    public Verdict check(RunEvidence run) {
      JobSpec spec = run.job().spec();
      if (spec.recovery().mode() != Recovery.Mode.CONSISTENT || spec.training().batchRule() != BatchRule.FIXED_GLOBAL) {
        return Verdict.ok("not checked: " + spec.recovery().mode().flag() + " recovery, "
            + spec.training().batchRule());
      }
      long wanted = spec.training().steps() * spec.globalBatchFor(spec.scale().workers());
      OptionalLong seen = run.output().metric("samples_seen");
      if (seen.isEmpty()) {
        return Verdict.failed("no samples_seen in metrics.json");
      }
      String said = "samples_seen " + seen.getAsLong() + ", steps x global batch " + wanted;
      return seen.getAsLong() == wanted ? Verdict.ok(said) : Verdict.failed(said);
    }
  }

  /**
   * Each fault cost the job no more worker failures than it must: a kill one, a long pause one, a
   * short pause or an AM kill none. More means one fault took healthy workers down with it (they
   * were fenced, or failed in the recovery), which eats into the budget the schedule relies on.
   */
  static final class Failures implements RunCheck {
    @Override
    public String name() {
      return FAILURES;
    }

    @Override
    public Verdict check(RunEvidence run) {
      String seen = "the AM counted " + run.failuresCounted() + " worker failure(s), the faults cost "
          + run.failuresExpected();
      return run.failuresCounted() <= run.failuresExpected() ? Verdict.ok(seen) : Verdict.failed(seen);
    }
  }
}
