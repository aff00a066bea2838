package org.edl.client;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.job.ModelOutput;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a submitted job until it ends: the application id at once, then one progress line
 * rewritten in place (step, loss, samples/s, workers) from the AM's job-control endpoint, which
 * it finds through the application report; at the end the final state, the diagnostics of a
 * failure, where the model and metrics are, and the first and last loss ({@link LossLine}: a
 * finished job's from its {@code metrics.json}, read with the client's configuration). When the
 * output is not a terminal (a file, a pipe, a CI log) a carriage return would run every update
 * into one line: there each update is a line of its own, when its state changes or every
 * {@value #LOG_EVERY_SECONDS} s.
 */
public final class ProgressFollower {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressFollower.class);
  private static final Set<YarnApplicationState> ENDED =
      EnumSet.of(YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);
  private static final Duration RPC_TIMEOUT = Duration.ofSeconds(10);
  static final long LOG_EVERY_SECONDS = 10;

  private final YarnClient yarn;
  private final Configuration conf;
  private final PrintWriter out;
  private final Duration pollInterval;
  private RpcConnection connection;
  private JobControl.Client control;
  private JobStatus lastStatus;
  private int lastLineLength;
  private final boolean inPlace;
  private String lastLogged = "";
  private long lastLoggedNanos;

  /** In place on a terminal ({@code System.console()}), a line per update otherwise. */
  public ProgressFollower(YarnClient yarn, Configuration conf, PrintWriter out, Duration pollInterval) {
    this(yarn, conf, out, pollInterval, System.console() != null);
  }

  public ProgressFollower(YarnClient yarn, Configuration conf, PrintWriter out, Duration pollInterval,
      boolean inPlace) {
    this.yarn = yarn;
    this.conf = conf;
    this.out = out;
    this.pollInterval = pollInterval;
    this.inPlace = inPlace;
  }

  /** Follows the job to its end; returns the process exit code (0 when it SUCCEEDED). */
  public int follow(SubmittedJob job) throws Exception {
    boolean torchrun = job.spec().script().torchrun();
    out.println("Submitted " + job.appId() + " (" + job.spec().scale().workers() + " x " + job.spec().training().model()
        + (torchrun ? ", torchrun" : ", " + job.spec().training().steps() + " steps") + ")");
    out.flush();
    ApplicationReport report;
    try {
      while (true) {
        report = yarn.getApplicationReport(job.appId());
        if (ENDED.contains(report.getYarnApplicationState())) {
          break;
        }
        if (report.getYarnApplicationState() == YarnApplicationState.RUNNING) {
          pollAm(report, job);
        }
        printLine(progressLine(report));
        Thread.sleep(pollInterval.toMillis());
      }
    } finally {
      disconnect();
    }
    if (lastLineLength > 0) {
      out.println();
    }
    return printOutcome(job, report);
  }

  private void pollAm(ApplicationReport report, SubmittedJob job) {
    if (report.getRpcPort() <= 0 || report.getHost() == null || "N/A".equals(report.getHost())) {
      return; // not registered yet
    }
    try {
      if (control == null) {
        connection = RpcClient.open(report.getHost(), report.getRpcPort(), job.secret(), RPC_TIMEOUT);
        control = new JobControl.Client(connection.protocol());
      }
      lastStatus = control.status();
    } catch (Exception e) {
      // The AM may be starting or already gone; the RM report still says where the job is.
      LOG.debug("No status from the AM at {}:{}", report.getHost(), report.getRpcPort(), e);
      disconnect();
    }
  }

  private String progressLine(ApplicationReport report) {
    return progressLine(report.getYarnApplicationState().name().toLowerCase(Locale.ROOT), lastStatus);
  }

  /** One progress line from the RM's state ("running") and the AM's latest status (null: none yet). */
  static String progressLine(String yarnState, JobStatus status) {
    if (status != null && status.getState() == JobState.SCALING && status.isSetDiagnostics()
        && status.getDiagnostics().startsWith("paused")) {
      // The last progress report still names the stopped ring: say what is happening instead.
      String at = status.isSetProgress() ? " after step " + status.getProgress().getStep() + "/"
          + status.getProgress().getTotalSteps() : "";
      return "paused" + at + " for the scheduler, " + status.getContainersSize() + "/" + status.getTargetWorkers()
          + " workers (resumes from its checkpoint when YARN grants them)";
    }
    if (status == null || !status.isSetProgress()) {
      String workers = status == null ? ""
          : ", " + status.getContainersSize() + "/" + status.getTargetWorkers() + " workers";
      return yarnState + workers;
    }
    JobProgress p = status.getProgress();
    if (org.edl.am.RendezvousProgress.is(p)) {
      return org.edl.am.RendezvousProgress.describe(p);
    }
    String loss = Double.isNaN(p.getLoss()) ? "-" : String.format(Locale.ROOT, "%.4f", p.getLoss());
    return String.format(Locale.ROOT, "step %d/%d  loss %s  %.0f samples/s  %d workers",
        p.getStep(), p.getTotalSteps(), loss, p.getSamplesPerSecond(), p.getWorkers());
  }

  private void printLine(String line) {
    if (!inPlace) {
      logLine(line);
      return;
    }
    // Pad over the longer line before, so the one line reads cleanly when it shrinks.
    String padded = line.length() < lastLineLength
        ? line + " ".repeat(lastLineLength - line.length()) : line;
    out.print("\r" + padded);
    out.flush();
    lastLineLength = line.length();
  }

  private void logLine(String line) {
    long now = System.nanoTime();
    boolean newState = !kind(line).equals(kind(lastLogged));
    if (line.equals(lastLogged) || !newState && now - lastLoggedNanos < LOG_EVERY_SECONDS * 1_000_000_000L) {
      return;
    }
    out.println(line);
    out.flush();
    lastLogged = line;
    lastLoggedNanos = now;
  }

  /** "accepted", "running, 1/2 workers", or "step" with the worker count: what makes a line news. */
  private static String kind(String line) {
    return line.startsWith("step ") ? line.substring(line.lastIndexOf("  ") + 2) : line;
  }

  private int printOutcome(SubmittedJob job, ApplicationReport report) {
    FinalApplicationStatus status = report.getFinalApplicationStatus();
    boolean ok = report.getYarnApplicationState() == YarnApplicationState.FINISHED
        && status == FinalApplicationStatus.SUCCEEDED;
    out.println(job.appId() + " " + (ok ? "SUCCEEDED" : "ended " + report.getYarnApplicationState()
        + " / " + status));
    String diagnostics = report.getDiagnostics() == null ? "" : report.getDiagnostics().strip();
    if (!ok && !diagnostics.isEmpty()) {
      out.println("Diagnostics: " + diagnostics);
    }
    JobProgress p = lastStatus != null && lastStatus.isSetProgress() ? lastStatus.getProgress() : null;
    // A torchrun script's output is its own affair: EDL has no model, metrics or loss to show.
    if (!job.spec().script().torchrun()) {
      printModelAndLoss(job, ok, p);
    }
    if (ok && !diagnostics.isEmpty()) {
      out.println("Summary: " + diagnostics);
    }
    out.flush();
    return ok ? 0 : 1;
  }

  private void printModelAndLoss(SubmittedJob job, boolean ok, JobProgress p) {
    // Only a SUCCEEDED job has them: the AM declares success only once both verify.
    if (ok) {
      out.println("Model:   " + (p != null && p.isSetModelPath() ? p.getModelPath()
          : job.spec().output() + "/" + ModelOutput.MODEL_FILE));
      out.println("Metrics: " + (p != null && p.isSetMetricsPath() ? p.getMetricsPath()
          : job.spec().output() + "/" + ModelOutput.METRICS_FILE));
    }
    String backend = job.spec().training().backend();
    Optional<ModelOutput.Metrics> metrics = ok ? finalMetrics(job) : Optional.empty();
    if (metrics.isPresent()) {
      out.println(LossLine.ofMetrics(metrics.get(), job.spec().training().steps(), backend));
    } else if (p != null) {
      out.println(LossLine.ofProgress(p, backend));
    }
  }

  /**
   * The leader's own figures of the job's last step; empty (the loss line then falls back on the
   * last progress seen, and says so) when they cannot be read from here.
   */
  private Optional<ModelOutput.Metrics> finalMetrics(SubmittedJob job) {
    try {
      return Optional.of(ModelOutput.readMetrics(conf, job.spec().output()));
    } catch (Exception e) {
      // Debug only: on the console this would be a raw log line between the closing lines.
      LOG.debug("Could not read {}/{}", job.spec().output(), ModelOutput.METRICS_FILE, e);
      return Optional.empty();
    }
  }

  private void disconnect() {
    if (connection != null) {
      connection.close();
    }
    connection = null;
    control = null;
  }
}
