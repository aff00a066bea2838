package org.edl.am;

import java.util.List;
import org.edl.thrift.WorkerPlacement;

/**
 * A snapshot of the fleet for the job-control endpoint; {@code scaling}: a change is on its way
 * (the job reports SCALING); {@code diagnostics}: how the job ended, or while it runs what the
 * last change did; {@code placements}: each container's host and GPUs, in the order of
 * {@code containers}.
 */
public record FleetStatus(WorkerFleet.Phase phase, boolean scaling, int targetWorkers, List<String> containers,
    String diagnostics, List<WorkerPlacement> placements) {
  public FleetStatus {
    containers = List.copyOf(containers);
    placements = List.copyOf(placements);
  }
}
