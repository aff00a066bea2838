package org.edl.scheduler.core.fair;

import java.util.Objects;

/**
 * One container request waiting for GPUs (a pod in the Run:AI talk).
 *
 * @param id unique among the pending requests of one decision; the last tie-breaker
 * @param user who asks
 * @param job the application asking
 * @param priority larger is more urgent, as YARN application priorities
 * @param submitTime when the job was submitted, in the snapshot's time base; earlier goes first
 * @param gpus GPUs the container needs on one node, {@code > 0}
 */
public record PendingRequest(
    String id, String user, String job, int priority, long submitTime, int gpus) {
  public PendingRequest {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(job, "job");
    Checks.positive("gpus of request " + id, gpus);
  }
}
