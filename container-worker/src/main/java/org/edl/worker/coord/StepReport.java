package org.edl.worker.coord;

/**
 * One member's report of one trained step (its sync). {@code batchStart} is the global sample
 * position where the step's batch started (-1: not given), {@code epochSize} the samples in one
 * data epoch (0: not given), {@code computeSeconds} the member's own time before the all-reduce,
 * {@code leaderEpoch} the newest leader epoch the member knows (0: not given).
 */
public record StepReport(String workerId, long step, double loss, double batchSeconds, int samples,
    long batchStart, int epochSize, double computeSeconds, long leaderEpoch) {}
