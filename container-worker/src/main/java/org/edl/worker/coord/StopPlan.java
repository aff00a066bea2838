package org.edl.worker.coord;

/** Stop-resume: every member stops after step {@code atStep}; the leader checkpoints into {@code directory}. */
public record StopPlan(long atStep, String directory, long leaderEpoch) {}
