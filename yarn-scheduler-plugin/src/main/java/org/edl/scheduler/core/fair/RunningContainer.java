package org.edl.scheduler.core.fair;

import java.util.Objects;

/**
 * A container holding GPUs.
 *
 * @param id unique in one decision
 * @param job the application it belongs to
 * @param user the application's user
 * @param node where it runs
 * @param gpus GPUs it holds, {@code >= 0}
 * @param priority its application's priority, larger more urgent
 * @param startTime when it started, in the snapshot's time base
 * @param elasticExtra whether it is above its job's guaranteed minimum: an elastic job's worker
 *     beyond {@code min}, which the job survives losing by scaling in. Only these are ever planned
 *     for preemption, so no job is taken below its minimum; an application master and the first
 *     {@code min} workers are never extras.
 */
public record RunningContainer(
    String id,
    String job,
    String user,
    String node,
    int gpus,
    int priority,
    long startTime,
    boolean elasticExtra) {
  public RunningContainer {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(node, "node");
    Checks.nonNegative("gpus of container " + id, gpus);
  }
}
