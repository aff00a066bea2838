package org.edl.bench.partitions;

/**
 * One seed's row of {@code partitions.csv}, and the note printed with it.
 *
 * @param schedule          the partition as {@link Partition#compact} has it
 * @param outcome           the application's final status, {@code TIMEOUT} or {@code ERROR}
 * @param singleLeader      no member obeyed an order of a leadership after a newer one began
 * @param exactlyOnce       samples_seen is the steps times the global batch (consistent recovery)
 * @param modelOk           the model and metrics are written and verify, at the job's last step
 * @param failuresCounted   worker failures the AM counted
 * @param failuresExpected  what the partition costs by {@link PartitionPromise}
 * @param healToTrainingSeconds from the heal to the first step after it; NaN when not measured
 */
public record PartitionRow(long seed, String schedule, String outcome, boolean singleLeader, boolean exactlyOnce,
    boolean modelOk, int failuresCounted, int failuresExpected, double healToTrainingSeconds, String note) {

  /** Heal to training within this, where no process died (the promise). */
  public static final double HEAL_TO_TRAINING_LIMIT_SECONDS = 5;

  /** Everything as promised: SUCCEEDED with its model, one leader, each sample once, the failures it costs. */
  public boolean asPromised() {
    boolean quick = failuresExpected > 0 || Double.isNaN(healToTrainingSeconds)
        || healToTrainingSeconds <= HEAL_TO_TRAINING_LIMIT_SECONDS;
    return "SUCCEEDED".equals(outcome) && singleLeader && exactlyOnce && modelOk
        && failuresCounted == failuresExpected && quick;
  }
}
