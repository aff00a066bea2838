package org.edl.worker.model;

/** A model told the job's step before it computes it (a script numbers its steps as the job does). */
public interface StepAware {
  void stepStarting(long step);
}
