package org.edl.am;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.thrift.TException;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfileResult;
import org.edl.worker.job.JobSpec;

/**
 * The AM's job-control endpoint. Thrift calls arrive on server threads; each one is handed to
 * the AM's main thread, which owns the fleet and the latest progress, so nothing here is locked.
 */
public final class JobControlService implements JobControl.Iface {
  private static final long STATUS_TIMEOUT_S = 10;

  private final String appId;
  private final JobSpec spec;
  private final Executor mainThread;
  private final WorkerFleet fleet;
  private final Consumer<JobProgress> onProgress;
  private JobProgress latest;

  /**
   * @param onProgress runs on the main thread with each new report (the AM forwards it to the
   *                   resource manager's progress)
   */
  public JobControlService(String appId, JobSpec spec, Executor mainThread, WorkerFleet fleet,
      Consumer<JobProgress> onProgress) {
    this.appId = appId;
    this.spec = spec;
    this.mainThread = mainThread;
    this.fleet = fleet;
    this.onProgress = onProgress;
  }

  @Override
  public JobStatus status() throws TException {
    try {
      return CompletableFuture.supplyAsync(this::snapshot, mainThread)
          .get(STATUS_TIMEOUT_S, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TException("interrupted while reading the job status", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new TException("could not read the job status: " + e, e);
    }
  }

  @Override
  public void reportProgress(JobProgress progress) {
    JobProgress copy = new JobProgress(progress);
    mainThread.execute(() -> {
      latest = copy;
      onProgress.accept(copy);
    });
  }

  @Override
  public JobStatus scaleOut(int count, org.edl.thrift.ScaleMode mode) throws EdlError {
    throw notYet("scale-out");
  }

  @Override
  public JobStatus scaleIn(int count, java.util.List<String> containerIds, org.edl.thrift.ScaleMode mode)
      throws EdlError {
    throw notYet("scale-in");
  }

  @Override
  public JobStatus migrate(String fromHost, String toHost) throws EdlError {
    throw notYet("migrate");
  }

  @Override
  public ProfileResult profile(int minWorkers, int maxWorkers, int batches) throws EdlError {
    throw notYet("profile");
  }

  /**
   * One sentence on the latest progress ("; step 200/200, loss 2.31 -> 0.42, model at ..."),
   * or empty before the first report. Main thread only.
   */
  String progressSummary() {
    if (latest == null) {
      return "";
    }
    StringBuilder s = new StringBuilder("; step ").append(latest.getStep()).append('/')
        .append(latest.getTotalSteps()).append(", loss ");
    if (latest.isSetFirstLoss()) {
      s.append(String.format(java.util.Locale.ROOT, "%.4f -> ", latest.getFirstLoss()));
    }
    s.append(String.format(java.util.Locale.ROOT, "%.4f", latest.getLoss()));
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
    JobStatus s = new JobStatus(appId, stateOf(f.phase()), f.targetWorkers(), f.containers());
    if (latest != null) {
      s.setProgress(new JobProgress(latest));
    }
    if (!f.diagnostics().isEmpty()) {
      s.setDiagnostics(f.diagnostics());
    }
    s.setMinWorkers(spec.minWorkers());
    s.setMaxWorkers(spec.maxWorkers());
    s.setBackend(spec.backend());
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

  private static EdlError notYet(String operation) {
    EdlError e = new EdlError(operation + " is not available yet: it arrives with elastic scaling"
        + " (this job runs a static set of workers)");
    e.setField("operation");
    e.setValue(operation);
    return e;
  }
}
