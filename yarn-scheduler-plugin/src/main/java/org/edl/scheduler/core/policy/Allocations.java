package org.edl.scheduler.core.policy;

/** Where a policy writes its decisions: the GPUs each changed job should hold from now on. */
@FunctionalInterface
public interface Allocations {
  void set(PolicyJob job, int gpus);
}
