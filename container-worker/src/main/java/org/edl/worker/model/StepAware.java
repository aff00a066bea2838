package org.edl.worker.model;

/** A model told the job's step before it computes it (a script numbers its steps as the job does). */
public interface StepAware {
  void stepStarting(long step);

  /**
   * Before each step, which samples this member trains at it and, if its ring stays, at the steps
   * after it (a script's DataLoader prefetches them).
   */
  default void upcoming(org.edl.worker.data.UpcomingBatches batches) {
  }

  /**
   * The last step's computing time in seconds as the model measured it, NaN if it did not: a
   * model that all-reduces in a group of its own (a script) waits there for the slowest member,
   * so the training loop's clock around its step cannot tell a straggler from the others.
   */
  default double computeSeconds() {
    return Double.NaN;
  }
}
