package org.edl.am;

import java.util.List;

/**
 * A snapshot of the fleet for the job-control endpoint; {@code scaling}: a change is on its way
 * (the job reports SCALING).
 */
public record FleetStatus(WorkerFleet.Phase phase, boolean scaling, int targetWorkers, List<String> containers,
    String diagnostics) {
  public FleetStatus {
    containers = List.copyOf(containers);
  }
}
