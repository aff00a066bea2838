package org.edl.am;

import java.util.List;

/** A snapshot of the fleet for the job-control endpoint. */
public record FleetStatus(WorkerFleet.Phase phase, int targetWorkers, List<String> containers,
    String diagnostics) {
  public FleetStatus {
    containers = List.copyOf(containers);
  }
}
