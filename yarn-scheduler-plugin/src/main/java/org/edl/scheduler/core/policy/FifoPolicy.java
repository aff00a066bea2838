package org.edl.scheduler.core.policy;

import java.util.ArrayDeque;

/**
 * First come, first served, no preemption: the head of the queue starts when its GPUs are free,
 * and nothing behind it may pass it (the baseline that shows head-of-line blocking).
 */
public final class FifoPolicy implements ClusterPolicy {
  private final int capacity;
  private final ArrayDeque<PolicyJob> waiting = new ArrayDeque<>();
  private int used;

  public FifoPolicy(int capacityGpus) {
    this.capacity = capacityGpus;
  }

  @Override
  public String name() {
    return "fifo";
  }

  @Override
  public void arrived(PolicyJob job, double now) {
    waiting.addLast(job);
  }

  @Override
  public void finished(PolicyJob job, double now) {
    used -= job.requestedGpus();
  }

  @Override
  public void schedule(double now, Allocations out) {
    while (!waiting.isEmpty() && waiting.peekFirst().requestedGpus() <= capacity - used) {
      PolicyJob j = waiting.pollFirst();
      used += j.requestedGpus();
      out.set(j, j.requestedGpus());
    }
  }
}
