package org.edl.bench.chaos;

/**
 * One seed's run of the chaos benchmark: what was done to the job and how it ended.
 *
 * @param seed               the seed of the fault schedule
 * @param faults             the schedule in compact form ({@link FaultSchedule#compact()}); a
 *                           fault that could not be applied is still listed, the note says why
 * @param outcome            the application's {@code FinalApplicationStatus} name, or
 *                           {@code TIMEOUT} (the bench killed it at its deadline), or
 *                           {@code ERROR} (the bench itself failed; the note says how)
 * @param finalStep          the {@code steps} of the job's metrics.json, or the last step the
 *                           AM reported when there is none; -1 if neither
 * @param steps              the steps the job was submitted with
 * @param samplesOk          samples_seen is what the recovery mode promises
 * @param modelOk            model.bin and metrics.json are there and not empty
 * @param recoverySecondsMax the longest recovery of the run's faults; NaN if none was measured
 * @param note               what else there is to say (failed checks, faults not applied); may be empty
 */
public record ChaosRun(long seed, String faults, String outcome, long finalStep, long steps, boolean samplesOk,
    boolean modelOk, double recoverySecondsMax, String note) {

  /** The outcome of a run the bench ended at its deadline. */
  public static final String TIMEOUT = "TIMEOUT";
  /** The outcome of a run the bench could not carry out. */
  public static final String ERROR = "ERROR";

  public ChaosRun {
    faults = faults == null ? "" : faults;
    note = note == null ? "" : note;
  }

  /** Ended as promised: succeeded at its last step with its model, every sample counted as promised. */
  public boolean asPromised() {
    // Two leaders acting is a broken promise whatever the files say; the note names it.
    return "SUCCEEDED".equals(outcome) && finalStep == steps && samplesOk && modelOk
        && !note.contains(RunChecks.LEADERS + " failed");
  }
}
