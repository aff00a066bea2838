package org.edl.am;

import java.util.Set;

/**
 * What one heartbeat's {@code PreemptionMessage} asks of the job, without YARN's types: the
 * containers the resource manager will kill after its grace period (the strict contract), and
 * the resources it would like back without naming containers (the non-strict contract), in
 * containers and in GPUs.
 */
public record PreemptionRequest(Set<String> containers, int askedContainers, long askedGpus) {
  public PreemptionRequest {
    containers = Set.copyOf(containers);
  }

  /** FairScheduler sends an empty strict contract on every heartbeat: that asks nothing. */
  public boolean isEmpty() {
    return containers.isEmpty() && askedContainers <= 0 && askedGpus <= 0;
  }
}
