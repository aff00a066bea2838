package org.edl.worker.coord;

/** What the leader knows about a finished (or finishing) run: the figures of {@code metrics.json}. */
public record RunSummary(long steps, int workers, double firstLoss, double lastLoss, double samplesPerSecond,
    long samples, long leaderEpoch) {}
