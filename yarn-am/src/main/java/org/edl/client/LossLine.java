package org.edl.client;

import java.util.Locale;
import org.edl.job.ModelOutput;
import org.edl.thrift.JobProgress;

/**
 * The closing {@code Loss:} line of a followed job. A job that SUCCEEDED has the leader's record of
 * its last step in {@code metrics.json}, which the AM verified before declaring success: that is
 * the line's source. The client's last poll of the AM is up to a poll interval plus the leader's
 * report interval older than the last step, so a line from it read as if the job stopped short of
 * the {@code Summary:} printed below it ("at step 5970 of 6000" above "step 6000/6000"). Where
 * there are no metrics (a failed job, an unreadable file), the latest progress the client saw is
 * all there is, and the line says so when that is not the job's last step.
 */
final class LossLine {
  private static final String EMULATED = " (the emulated backend only times its batches; it computes no loss)";

  private LossLine() {}

  /** From the job's {@code metrics.json}: the loss at the step the job ended at. */
  static String ofMetrics(ModelOutput.Metrics m, long totalSteps, String backend) {
    if (m.lastLoss() == null) {
      return none(m.steps(), totalSteps, backend);
    }
    return line(m.firstLoss() == null ? Double.NaN : m.firstLoss(), m.lastLoss(), m.steps(), totalSteps, "");
  }

  /** From the latest progress report the client saw, which may be some steps short of the job's end. */
  static String ofProgress(JobProgress p, String backend) {
    if (!Double.isFinite(p.getLoss())) {
      return none(p.getStep(), p.getTotalSteps(), backend);
    }
    double first = p.isSetFirstLoss() ? p.getFirstLoss() : Double.NaN;
    String sampled = p.getStep() < p.getTotalSteps() ? " (the latest progress this client saw)" : "";
    return line(first, p.getLoss(), p.getStep(), p.getTotalSteps(), sampled);
  }

  private static String line(double first, double last, long step, long totalSteps, String note) {
    String start = Double.isFinite(first) ? String.format(Locale.ROOT, "%.4f", first) : "?";
    return String.format(Locale.ROOT, "Loss:    %s at the start, %.4f at step %d of %d%s", start, last, step,
        totalSteps, note);
  }

  /** An emulated model computes no loss, which "NaN" does not say. */
  private static String none(long step, long totalSteps, String backend) {
    return String.format(Locale.ROOT, "Loss:    none at step %d of %d%s", step, totalSteps,
        "emulated".equals(backend) ? EMULATED : "");
  }
}
