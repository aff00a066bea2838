package org.edl.am;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision side of the AM: how many workers the job wants and what each container event
 * means for the job. It never talks to YARN; it tells a {@link ContainerDriver} what to do.
 *
 * <p>Rules, in order: an event after the job ended changes nothing; a worker that exits
 * non-zero (or cannot start) fails the job, naming the container, its host and YARN's
 * diagnostics, and the others are released; a worker that exits 0 means training finished, so
 * nothing is replaced any more, and the job succeeds when the last one has exited 0; an
 * allocation beyond the target is given back.
 *
 * <p>Not thread-safe by design: every call comes on the AM's main thread.
 */
public final class WorkerFleet implements ContainerEventHandler {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerFleet.class);

  /** Where the job is; the last two are final. */
  public enum Phase { STARTING, RUNNING, FINISHING, SUCCEEDED, FAILED }

  private final ContainerDriver driver;
  private final WorkerResource resource;
  private final GpuSlots gpus = new GpuSlots();
  private final Map<String, WorkerContainer> live = new LinkedHashMap<>();
  private final Set<String> started = new HashSet<>();
  private final CompletableFuture<JobOutcome> outcome = new CompletableFuture<>();
  private int target;
  private int outstanding;
  private int exitedOk;
  private Phase phase = Phase.STARTING;
  private String diagnostics = "";

  public WorkerFleet(ContainerDriver driver, WorkerResource resource, int targetWorkers) {
    if (targetWorkers < 1) {
      throw new IllegalArgumentException("targetWorkers must be at least 1: " + targetWorkers);
    }
    this.driver = driver;
    this.resource = resource;
    this.target = targetWorkers;
  }

  /** Asks for the first workers. */
  public void start() {
    requestMissing();
  }

  /** Completes once, when the job has succeeded or failed. */
  public CompletableFuture<JobOutcome> outcome() {
    return outcome;
  }

  public FleetStatus status() {
    return new FleetStatus(phase, target, new ArrayList<>(live.keySet()), diagnostics);
  }

  @Override
  public void onContainersAllocated(List<WorkerContainer> containers) {
    for (WorkerContainer c : containers) {
      outstanding = Math.max(0, outstanding - 1);
      if (wantsMore()) {
        live.put(c.id(), c);
        List<Integer> indices = gpus.assign(c, resource.gpus());
        LOG.info("Launching worker in {} on {} with GPUs {}", c.id(), c.host(), indices);
        driver.launch(c, new WorkerLaunch(indices));
      } else {
        LOG.info("Releasing {} on {}: not needed (phase {}, {} of {} workers)",
            c.id(), c.host(), phase, live.size(), target);
        driver.release(c.id());
      }
    }
  }

  @Override
  public void onContainerStarted(String containerId) {
    if (!live.containsKey(containerId)) {
      return;
    }
    started.add(containerId);
    if (phase == Phase.STARTING && started.size() >= target) {
      phase = Phase.RUNNING;
      LOG.info("All {} workers started", target);
    }
  }

  @Override
  public void onContainerStartFailed(String containerId, Throwable cause) {
    WorkerContainer c = live.get(containerId);
    if (c == null || isDone()) {
      return;
    }
    fail("worker container " + c.id() + " on " + c.host() + " could not be started: " + cause);
  }

  @Override
  public void onContainerCompleted(String containerId, int exitStatus, String yarnDiagnostics) {
    WorkerContainer c = live.remove(containerId);
    if (c == null) {
      return; // one we released, or reported twice
    }
    started.remove(containerId);
    gpus.free(c);
    if (isDone()) {
      return;
    }
    if (exitStatus == 0) {
      exitedOk++;
      phase = Phase.FINISHING;
      LOG.info("Worker {} on {} finished ({} done, {} still running)", c.id(), c.host(), exitedOk, live.size());
      if (live.isEmpty()) {
        finish(JobOutcome.success("all " + exitedOk + " workers finished training"));
      }
      return;
    }
    fail("worker container " + c.id() + " on " + c.host() + " failed with exit status "
        + exitStatus + ": " + clean(yarnDiagnostics));
  }

  @Override
  public void onError(Throwable cause) {
    if (!isDone()) {
      fail("ApplicationMaster error: " + cause);
    }
  }

  private boolean wantsMore() {
    return (phase == Phase.STARTING || phase == Phase.RUNNING) && live.size() < target;
  }

  private void requestMissing() {
    int missing = target - live.size() - outstanding;
    if (missing > 0 && wantsMore()) {
      outstanding += missing;
      LOG.info("Requesting {} worker containers of {}", missing, resource);
      driver.requestContainers(missing, resource);
    }
  }

  private boolean isDone() {
    return phase == Phase.SUCCEEDED || phase == Phase.FAILED;
  }

  private void fail(String why) {
    LOG.error("Job failed: {}", why);
    for (String id : new ArrayList<>(live.keySet())) {
      driver.release(id);
    }
    finish(JobOutcome.failure(why));
  }

  private void finish(JobOutcome result) {
    phase = result.succeeded() ? Phase.SUCCEEDED : Phase.FAILED;
    diagnostics = result.diagnostics();
    outcome.complete(result);
  }

  private static String clean(String yarnDiagnostics) {
    return yarnDiagnostics == null || yarnDiagnostics.isBlank() ? "(no diagnostics from YARN)" : yarnDiagnostics.strip();
  }
}
