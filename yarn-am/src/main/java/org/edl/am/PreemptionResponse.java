package org.edl.am;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.edl.job.ScaleMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the resource manager's preemption warnings into graceful scale-ins: the workers it
 * names leave the ring at a future step well before its grace period ends, so that it has
 * nothing to kill and the job loses no step. Where it asks for resources without naming
 * containers, the newest workers (the elastic extras) leave. Never below min-workers: a
 * container that would take the job below its minimum is left running (the fair-share plugin
 * does not ask for those: they are the job's guaranteed GPUs), except that a warning for every
 * worker pauses the job ({@link WorkerFleet#pause}: a stop-resume at the same size, whose new
 * containers the scheduler grants when it wants the job to run again).
 *
 * <p>The resource manager repeats its message on every heartbeat until the containers are gone,
 * so each container is asked to leave once only, and a resource ask is answered once until it
 * changes. While the job is in the middle of another change nothing is asked; the next
 * heartbeat's message tries again; should the grace period end first, the container's PREEMPTED
 * end still shrinks the job rather than counting as a failure ({@link #wasWarned}). The target
 * shrinks with the leavers: nothing is requested to replace them, unlike a failed worker.
 */
final class PreemptionResponse {
  private static final Logger LOG = LoggerFactory.getLogger(PreemptionResponse.class);

  private final WorkerFleet fleet;
  private final int gpusPerWorker;
  /** Every container already asked to leave for the resource manager. */
  private final Set<String> asked = new HashSet<>();
  /** Every container the resource manager has named, asked to leave or not. */
  private final Set<String> warned = new HashSet<>();
  /** Why the last pause could not begin, logged once; null: none. */
  private String notYet;
  /** The last resource ask answered; null: none pending. */
  private PreemptionRequest answeredAsk;

  PreemptionResponse(WorkerFleet fleet, int gpusPerWorker) {
    this.fleet = fleet;
    this.gpusPerWorker = gpusPerWorker;
  }

  void respond(PreemptionRequest request) {
    boolean asksResources = request.askedContainers() > 0 || request.askedGpus() > 0;
    if (!asksResources) {
      answeredAsk = null;
    }
    if (!request.containers().isEmpty()) {
      respondToNamed(request.containers());
    } else if (asksResources) {
      respondToResources(request);
    }
  }

  /** Whether the resource manager named {@code containerId} before: its PREEMPTED end is no failure. */
  boolean wasWarned(String containerId) {
    return warned.contains(containerId);
  }

  private void respondToNamed(Set<String> named) {
    warned.addAll(named);
    List<String> running = fleet.runningWorkerIds();
    List<String> wanted = new ArrayList<>();
    for (String id : running) {
      if (named.contains(id) && !asked.contains(id)) {
        wanted.add(id);
      }
    }
    if (wanted.isEmpty()) {
      return;
    }
    if (wanted.size() == running.size()) {
      pause(wanted);
      return;
    }
    int spare = fleet.status().targetWorkers() - fleet.minWorkers();
    if (wanted.size() > spare) {
      // Newest first, like the plugin's elastic extras: the oldest stay.
      List<String> kept = wanted.subList(0, wanted.size() - Math.max(0, spare));
      LOG.warn("The resource manager wants {} but the job is at {} workers with min-workers={}:"
          + " {} stay", wanted, fleet.status().targetWorkers(), fleet.minWorkers(), kept);
      wanted = new ArrayList<>(wanted.subList(wanted.size() - Math.max(0, spare), wanted.size()));
    }
    if (wanted.isEmpty()) {
      return;
    }
    if (scaleIn(0, wanted, "named " + wanted)) {
      asked.addAll(wanted);
    }
  }

  /**
   * Every worker is wanted: the Elastic-Tiresias mode pauses a job of one size that way. The job
   * stops with a checkpoint and asks again, long before the grace period ends. Mid-change the
   * next heartbeat's message tries again.
   */
  private void pause(List<String> all) {
    // Not remembered in {@code asked}: the leader may still refuse the stop (a ring not yet
    // formed), and then the next heartbeat's warning asks again. A pause under way is a change,
    // which the fleet refuses to begin twice.
    try {
      fleet.pause("the resource manager will preempt all " + all.size() + " workers");
      notYet = null;
    } catch (FleetRefusal e) {
      if (!java.util.Objects.equals(e.getMessage(), notYet)) {
        LOG.info("Not pausing for the resource manager yet: {}", e.getMessage());
      }
      notYet = e.getMessage();
    }
  }

  private void respondToResources(PreemptionRequest request) {
    if (request.equals(answeredAsk)) {
      return;
    }
    long workers = request.askedGpus() > 0 && gpusPerWorker > 0
        ? (request.askedGpus() + gpusPerWorker - 1) / gpusPerWorker
        : request.askedContainers();
    int spare = fleet.status().targetWorkers() - fleet.minWorkers();
    int n = (int) Math.min(workers, spare);
    if (n < 1) {
      LOG.warn("The resource manager asks for {} containers / {} GPUs back, but the job is at"
          + " min-workers={}: nothing leaves", request.askedContainers(), request.askedGpus(),
          fleet.minWorkers());
      answeredAsk = request;
      return;
    }
    if (scaleIn(n, List.of(), n + " of the newest workers (asked: " + request.askedContainers()
        + " containers, " + request.askedGpus() + " GPUs)")) {
      answeredAsk = request;
    }
  }

  private boolean scaleIn(int count, List<String> ids, String what) {
    ScaleMode mode = fleet.automaticMode();
    if (mode == ScaleMode.STOP_RESUME && !ids.isEmpty()) {
      // A restart at the smaller size releases every container, the named ones with them.
      count = ids.size();
      ids = List.of();
    }
    try {
      fleet.scaleIn(count, ids, mode);
      LOG.info("The resource manager will preempt containers of this job: scaling in {}", what);
      return true;
    } catch (FleetRefusal e) {
      // Mid-change (or no longer running): the message comes again with the next heartbeat.
      LOG.info("Not scaling in for the resource manager yet ({}): {}", what, e.getMessage());
      return false;
    }
  }
}
