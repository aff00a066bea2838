package org.edl.worker.coord;

import java.util.List;

/** What the leader reports to the ApplicationMaster. */
public record LeaderProgress(long step, long totalSteps, double loss, double samplesPerSecond, int workers,
    int dataEpoch, long samplesSeen, double leaderSeconds, double firstLoss, List<String> events,
    long leaderEpoch, long topologyVersion, List<String> members, List<String> failed, Phase phase,
    JobOutput output) {}
