package org.edl.worker.coord;

/**
 * One member's report of one trained step (its sync). {@code batchStart} is the global sample
 * position where the step's batch started (-1: not given), {@code epochSize} the samples in one
 * data epoch (0: not given), {@code computeSeconds} the member's own time before the all-reduce
 * (-1: not given), {@code leaderEpoch} the newest leader epoch the member knows (0: not given).
 * Build one with {@link #of}, which leaves every optional part not given.
 */
public record StepReport(String workerId, long step, double loss, double batchSeconds, int samples,
    long batchStart, int epochSize, double computeSeconds, long leaderEpoch) {

  /** A report of {@code step} by {@code workerId}: the loss, the batch's time and its samples. */
  public static Builder of(String workerId, long step, double loss, double batchSeconds, int samples) {
    return new Builder(workerId, step, loss, batchSeconds, samples);
  }

  /** The optional parts of a report, each not given until set. */
  public static final class Builder {
    private final String workerId;
    private final long step;
    private final double loss;
    private final double batchSeconds;
    private final int samples;
    private long batchStart = -1;
    private int epochSize;
    private double computeSeconds = -1;
    private long leaderEpoch;

    private Builder(String workerId, long step, double loss, double batchSeconds, int samples) {
      this.workerId = workerId;
      this.step = step;
      this.loss = loss;
      this.batchSeconds = batchSeconds;
      this.samples = samples;
    }

    public Builder batchStart(long v) {
      this.batchStart = v;
      return this;
    }

    public Builder epochSize(int v) {
      this.epochSize = v;
      return this;
    }

    public Builder computeSeconds(double v) {
      this.computeSeconds = v;
      return this;
    }

    public Builder leaderEpoch(long v) {
      this.leaderEpoch = v;
      return this;
    }

    public StepReport build() {
      return new StepReport(workerId, step, loss, batchSeconds, samples, batchStart, epochSize, computeSeconds,
          leaderEpoch);
    }
  }
}
