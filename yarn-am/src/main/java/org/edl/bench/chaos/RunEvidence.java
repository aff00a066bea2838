package org.edl.bench.chaos;

import java.util.List;
import org.edl.client.SubmittedJob;

/**
 * Everything known about a chaos run once it has ended, for the {@link RunCheck}s.
 *
 * @param seed             the schedule's seed
 * @param job              the job as submitted (its spec has the output directory)
 * @param outcome          the final application status name, {@code TIMEOUT} or {@code ERROR}
 * @param diagnostics      YARN's diagnostics of the application (the AM's final message)
 * @param lastReportedStep the last step the AM reported; -1 if it never did
 * @param output           what the job left in its output directory
 * @param faults           the faults as they were applied (or not), in schedule order
 * @param failuresCounted  worker failures the AM counted, over all its attempts
 * @param failuresExpected worker failures the applied faults cost ({@link Fault#workerFailures})
 * @param leaderships      when each leadership began and what members took from each
 */
public record RunEvidence(long seed, SubmittedJob job, String outcome, String diagnostics, long lastReportedStep,
    JobOutput output, List<FaultRecovery> faults, int failuresCounted, int failuresExpected,
    LeadershipLog leaderships) {
  public RunEvidence {
    faults = List.copyOf(faults);
    diagnostics = diagnostics == null ? "" : diagnostics;
  }
}
