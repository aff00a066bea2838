package org.edl.am;

import java.util.List;

/**
 * A snapshot of the fleet for the job-control endpoint; {@code scaling}: a change is on its way
 * (the job reports SCALING); {@code diagnostics}: how the job ended, or while it runs what the
 * last change did.
 */
public record FleetStatus(WorkerFleet.Phase phase, boolean scaling, int targetWorkers, List<String> containers,
    String diagnostics) {
  public FleetStatus {
    containers = List.copyOf(containers);
  }
}
