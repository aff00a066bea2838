package org.edl.am;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.thrift.TException;
import org.edl.job.JobSpec;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfileResult;
import org.edl.thrift.ScaleMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AM's job-control endpoint. Thrift calls arrive on server threads; each one is handed to
 * the AM's main thread, which owns the fleet and the latest progress, so nothing here is locked.
 * Scale-out, scale-in and migrate return the job status just after the fleet accepted the
 * change (state SCALING); a refused change is an {@link EdlError} naming the field and the value,
 * and nothing changed. The leader's progress reports tell the fleet the ring's size.
 */
public final class JobControlService implements JobControl.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(JobControlService.class);
  private static final long CALL_TIMEOUT_S = 10;
  /** A profile waits for newcomers to start and for batches at every size: allow for slow models. */
  private static final long PROFILE_TIMEOUT_S = 6 * 3600;

  private final String appId;
  private final JobSpec spec;
  private final Executor mainThread;
  private final WorkerFleet fleet;
  private final Consumer<JobProgress> onProgress;
  private final ProfileStore profiles;
  private final WorkerGpus workerGpus;
  private JobProgress latest;
  /** The newest leader epoch that reported: a report of an older one comes from a superseded leader. */
  private long newestEpoch;
  private ProfileRun profile;

  /**
   * @param onProgress runs on the main thread with each new report (the AM forwards it to the
   *                   resource manager's progress)
   */
  public JobControlService(String appId, JobSpec spec, Executor mainThread, WorkerFleet fleet,
      Consumer<JobProgress> onProgress) {
    this(appId, spec, mainThread, fleet, onProgress, ProfileStore.NONE);
  }

  /** @param profiles where a finished profile's table and chart are kept */
  public JobControlService(String appId, JobSpec spec, Executor mainThread, WorkerFleet fleet,
      Consumer<JobProgress> onProgress, ProfileStore profiles) {
    this(appId, spec, mainThread, fleet, onProgress, profiles, WorkerGpus.NONE);
  }

  /** @param workerGpus what each worker reports it uses; the status shows it instead of the AM's suggestion */
  public JobControlService(String appId, JobSpec spec, Executor mainThread, WorkerFleet fleet,
      Consumer<JobProgress> onProgress, ProfileStore profiles, WorkerGpus workerGpus) {
    this.workerGpus = workerGpus;
    this.appId = appId;
    this.spec = spec;
    this.mainThread = mainThread;
    this.fleet = fleet;
    this.onProgress = onProgress;
    this.profiles = profiles;
    // Completes on the main thread (the fleet finishes there), so the profile is touched there only.
    fleet.outcome().thenRun(() -> {
      if (profile != null) {
        profile.jobStopped();
      }
    });
  }

  @Override
  public JobStatus status() throws TException {
    return withReportedGpus(onMainThread("read the job status", this::snapshot));
  }

  /**
   * Each placement's GPUs as its worker reported them, where it has. Here on the caller's thread,
   * not the main one: each is a ZooKeeper read, and the fleet's book holds only the suggestion.
   */
  private JobStatus withReportedGpus(JobStatus s) {
    if (!s.isSetPlacements()) {
      return s;
    }
    for (org.edl.thrift.WorkerPlacement p : s.getPlacements()) {
      try {
        workerGpus.of(p.getContainer()).ifPresent(p::setGpus);
      } catch (Exception e) {
        LOG.warn("Could not read the GPUs {} reported; showing the AM's suggestion: {}", p.getContainer(), e.toString());
      }
    }
    return s;
  }

  @Override
  public void reportProgress(JobProgress progress) {
    JobProgress copy = new JobProgress(progress);
    mainThread.execute(() -> {
      long epoch = copy.isSetLeaderEpoch() ? copy.getLeaderEpoch() : 0;
      if (epoch < newestEpoch) {
        LOG.warn("Ignoring a progress report of leader epoch {} (step {}): epoch {} has reported since", epoch,
            copy.getStep(), newestEpoch);
        return;
      }
      newestEpoch = epoch;
      latest = copy;
      // Each on its own: a failing hook must not keep the report from the fleet, whose changes
      // (a scale-out done, a leaver gone) wait for it; and the next report comes within seconds.
      hear("the AM's progress hooks", copy, () -> onProgress.accept(copy));
      hear("the fleet", copy, () -> fleet.onProgressReport(LeaderReport.of(copy)));
      if (profile != null) {
        hear("the profile run", copy, () -> profile.onProgress(copy));
      }
    });
  }

  private static void hear(String who, JobProgress report, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.error("{} failed on the leader's report of step {} ({} workers, epoch {})", who, report.getStep(),
          report.getWorkers(), report.isSetLeaderEpoch() ? report.getLeaderEpoch() : 0, e);
    }
  }

  @Override
  public JobStatus scaleOut(int count, ScaleMode mode) throws TException {
    return onMainThread("scale out", () -> {
      requireNotProfiling("scale-out");
      fleet.scaleOutByUser(count, org.edl.job.rpc.WireEnums.scaleMode(mode));
      return snapshot();
    });
  }

  @Override
  public JobStatus scaleIn(int count, List<String> containerIds, ScaleMode mode) throws TException {
    List<String> ids = containerIds == null ? List.of() : List.copyOf(containerIds);
    return onMainThread("scale in", () -> {
      requireNotProfiling("scale-in");
      fleet.scaleInByUser(count, ids, org.edl.job.rpc.WireEnums.scaleMode(mode));
      return snapshot();
    });
  }

  @Override
  public JobStatus migrate(String fromHost, String toHost) throws TException {
    return onMainThread("migrate", () -> {
      requireNotProfiling("migrate");
      requireNotTorchrun("migrate", "scale out on the new host's capacity and scale in the old workers instead");
      fleet.migrate(fromHost, toHost);
      return snapshot();
    });
  }

  /**
   * Runs a profile and answers when it is done (the call blocks for as long as the sizes take).
   * The table and chart are stored with the job; a failure to store them is logged, and the
   * measured points are returned all the same.
   */
  @Override
  public ProfileResult profile(int minWorkers, int maxWorkers, int batches) throws TException {
    ProfileRun run = onMainThread("start profiling", () -> {
      requireNotProfiling("profile");
      requireNotTorchrun("profile", "its script reports no throughput to measure");
      profile = ProfileRun.begin(fleet, spec.scale().minWorkers(), spec.scale().maxWorkers(), minWorkers, maxWorkers,
          batches, spec::globalBatchFor, System::nanoTime);
      fleet.pauseGrowth(true);
      profile.result().whenComplete((r, e) -> fleet.pauseGrowth(false));
      return profile;
    });
    ProfileResult result = await("profile", run.result(), PROFILE_TIMEOUT_S);
    try {
      ProfileStore.Stored stored = profiles.store(result);
      if (stored.tablePath() != null) {
        result.setTablePath(stored.tablePath());
      }
      if (stored.chartPath() != null) {
        result.setChartPath(stored.chartPath());
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not store the profile with the job: {}", e.toString());
    }
    return result;
  }

  private void requireNotProfiling(String operation) throws FleetRefusal {
    if (profile != null && profile.isRunning()) {
      throw WorkerFleet.error("state", "PROFILING", operation + " must wait: a profile is changing"
          + " the job's size");
    }
  }

  /** A torchrun job restarts every process at each change and has no EDL steps to measure. */
  private void requireNotTorchrun(String operation, String instead) throws FleetRefusal {
    if (spec.script().torchrun()) {
      throw WorkerFleet.error("script", spec.script().file(), "a --torchrun job cannot " + operation + ": " + instead);
    }
  }

  /** A fleet call that may refuse with a user error; it runs on the main thread, which owns the fleet. */
  @FunctionalInterface
  private interface FleetCall<T> {
    T run() throws FleetRefusal;
  }

  private <T> T onMainThread(String what, FleetCall<T> call) throws TException {
    CompletableFuture<T> result = new CompletableFuture<>();
    mainThread.execute(() -> {
      try {
        result.complete(call.run());
      } catch (Throwable t) {
        result.completeExceptionally(t);
      }
    });
    return await(what, result, CALL_TIMEOUT_S);
  }

  private static <T> T await(String what, CompletableFuture<T> result, long timeoutS) throws TException {
    try {
      return result.get(timeoutS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TException("interrupted while waiting to " + what, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof FleetRefusal user) {
        EdlError error = new EdlError(user.getMessage());
        error.setField(user.field());
        error.setValue(user.value());
        throw error;
      }
      throw new TException("could not " + what + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new TException("could not " + what + ": no answer within " + timeoutS + " s", e);
    }
  }

  /**
   * One sentence on the latest progress ("; step 200/200, loss 2.31 -> 0.42, model at ..."),
   * or empty before the first report. Main thread only.
   */
  String progressSummary() {
    if (latest == null) {
      return "";
    }
    if (org.edl.am.RendezvousProgress.is(latest)) {
      return "; " + org.edl.am.RendezvousProgress.describe(latest);
    }
    StringBuilder s = new StringBuilder("; step ").append(latest.getStep()).append('/')
        .append(latest.getTotalSteps());
    if (Double.isNaN(latest.getLoss())) {
      // The emulated backend times its batches and computes no loss: "NaN" would read as a diverged model.
      s.append(", no loss computed");
    } else {
      s.append(", loss ");
      if (latest.isSetFirstLoss() && !Double.isNaN(latest.getFirstLoss())) {
        s.append(String.format(java.util.Locale.ROOT, "%.4f -> ", latest.getFirstLoss()));
      }
      s.append(String.format(java.util.Locale.ROOT, "%.4f", latest.getLoss()));
    }
    if (latest.isSetModelPath()) {
      s.append(", model at ").append(latest.getModelPath());
    }
    if (latest.isSetMetricsPath()) {
      s.append(", metrics at ").append(latest.getMetricsPath());
    }
    return s.toString();
  }

  private JobStatus snapshot() {
    FleetStatus f = fleet.status();
    JobState state = f.scaling() ? JobState.SCALING : stateOf(f.phase());
    JobStatus s = new JobStatus(appId, state, f.targetWorkers(), f.containers());
    s.setPlacements(f.placements());
    if (latest != null) {
      s.setProgress(new JobProgress(latest));
    }
    if (!f.diagnostics().isEmpty()) {
      s.setDiagnostics(f.diagnostics());
    }
    s.setMinWorkers(spec.scale().minWorkers());
    s.setMaxWorkers(spec.scale().maxWorkers());
    s.setBackend(spec.training().backend());
    return s;
  }

  private static JobState stateOf(WorkerFleet.Phase phase) {
    return switch (phase) {
      case STARTING -> JobState.STARTING;
      case RUNNING, FINISHING -> JobState.RUNNING;
      case SUCCEEDED -> JobState.SUCCEEDED;
      case FAILED -> JobState.FAILED;
    };
  }
}
