package org.edl.cli;

import java.util.List;
import java.util.Locale;
import org.edl.job.InvalidInputException;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.edl.thrift.ScaleMode;

/** How the job-control commands print what the AM answered. Pure functions of the answer. */
final class JobStatusText {
  private static final String INDENT = "             ";

  private JobStatusText() {}

  /** Several lines, each ending in a newline. */
  static String status(JobStatus s) {
    StringBuilder b = new StringBuilder();
    b.append(s.getAppId()).append("  ").append(s.getState()).append('\n');
    b.append(label("Workers")).append("target ").append(s.getTargetWorkers());
    if (s.isSetMinWorkers() || s.isSetMaxWorkers()) {
      b.append(" (min ").append(s.isSetMinWorkers() ? s.getMinWorkers() : "?")
          .append(", max ").append(s.isSetMaxWorkers() ? s.getMaxWorkers() : "?").append(')');
    }
    b.append(", ").append(s.getContainersSize()).append(" container")
        .append(s.getContainersSize() == 1 ? "" : "s").append('\n');
    if (s.isSetBackend()) {
      b.append(label("Backend")).append(s.getBackend());
      if ("emulated".equals(s.getBackend())) {
        b.append(" (emulation: batch times from a measured profile)");
      }
      b.append('\n');
    }
    b.append(label("Progress")).append(s.isSetProgress() ? progress(s.getProgress()) : "none reported yet")
        .append('\n');
    if (s.isSetProgress() && s.getProgress().isSetLeaderEpoch()) {
      b.append(label("Leader")).append(leader(s.getProgress())).append('\n');
    }
    if (s.isSetProgress() && s.getProgress().getEventsSize() > 0) {
      List<String> events = s.getProgress().getEvents();
      for (int i = 0; i < events.size(); i++) {
        b.append(i == 0 ? label("Events") : INDENT).append(events.get(i)).append('\n');
      }
    }
    if (s.getContainersSize() == 0) {
      b.append(label("Containers")).append("none\n");
    } else {
      java.util.Map<String, org.edl.thrift.WorkerPlacement> where = new java.util.HashMap<>();
      if (s.isSetPlacements()) {
        s.getPlacements().forEach(p -> where.put(p.getContainer(), p));
      }
      for (int i = 0; i < s.getContainersSize(); i++) {
        String id = s.getContainers().get(i);
        b.append(i == 0 ? label("Containers") : INDENT).append(id);
        org.edl.thrift.WorkerPlacement p = where.get(id);
        if (p != null) {
          b.append("  on ").append(p.getHost()).append(p.getGpusSize() == 0 ? ", no GPU"
              : (p.getGpusSize() == 1 ? ", GPU " : ", GPUs ") + p.getGpus().toString().replaceAll("[\\[\\]]", ""));
        }
        b.append('\n');
      }
    }
    if (s.isSetDiagnostics() && !s.getDiagnostics().isBlank()) {
      b.append(label("Diagnostics")).append(s.getDiagnostics().strip()).append('\n');
    }
    return b.toString();
  }

  /** {@code epoch 2, RUNNING, ring v4: c1, c2, c3; declared failed: c5}: who leads, and what it knows. */
  static String leader(JobProgress p) {
    StringBuilder b = new StringBuilder("epoch ").append(p.getLeaderEpoch());
    if (p.isSetPhase()) {
      b.append(", ").append(p.getPhase());
    }
    if (p.isSetTopologyVersion()) {
      b.append(", ring v").append(p.getTopologyVersion());
      if (p.getMembersSize() > 0) {
        b.append(": ").append(String.join(", ", p.getMembers()));
      }
    }
    if (p.getFailedSize() > 0) {
      b.append("; declared failed: ").append(String.join(", ", p.getFailed()));
    }
    return b.toString();
  }

  static String progress(JobProgress p) {
    if (org.edl.am.RendezvousProgress.is(p)) {
      return org.edl.am.RendezvousProgress.describe(p);
    }
    String loss = Double.isNaN(p.getLoss()) ? "-" : String.format(Locale.ROOT, "%.4f", p.getLoss());
    String epoch = p.isSetEpoch() ? "  epoch " + p.getEpoch() : "";
    return String.format(Locale.ROOT, "step %d/%d  loss %s  %.0f samples/s  %d workers%s",
        p.getStep(), p.getTotalSteps(), loss, p.getSamplesPerSecond(), p.getWorkers(), epoch);
  }

  /** The measured points as a table, then where the AM stored the table and the chart. */
  static String profile(ProfileResult r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%7s  %10s  %7s%n", "workers", "samples/s", "batches"));
    for (ProfilePoint p : r.getPoints()) {
      b.append(String.format(Locale.ROOT, "%7d  %10.1f  %7d%n", p.getWorkers(), p.getSamplesPerSecond(),
          p.getBatches()));
    }
    if (r.isSetSeconds()) {
      b.append(String.format(Locale.ROOT, "Profiled in %.1f s%n", r.getSeconds()));
    }
    b.append("Table: ").append(r.isSetTablePath() ? r.getTablePath() : "not stored").append('\n');
    b.append("Chart: ").append(r.isSetChartPath() ? r.getChartPath() : "not stored").append('\n');
    return b.toString();
  }

  /** One line: the AM's message, and the field and value it names unless the message does. */
  static String refusal(EdlError e) {
    String message = e.getMessage() == null || e.getMessage().isBlank()
        ? "the ApplicationMaster refused the request" : e.getMessage().strip().replaceAll("\\s*\\R\\s*", " ");
    if (e.isSetField()) {
      String named = e.getField() + "=" + (e.isSetValue() ? e.getValue() : "");
      if (!message.contains(named)) {
        message += " (" + named + ")";
      }
    }
    return "refused: " + message;
  }

  static ScaleMode modeOf(String name) {
    return switch (name.strip().toLowerCase(Locale.ROOT)) {
      case "edl" -> ScaleMode.EDL;
      case "stop-resume" -> ScaleMode.STOP_RESUME;
      default -> throw new InvalidInputException("--mode", name, "edl or stop-resume");
    };
  }

  static String modeName(ScaleMode mode) {
    return mode == ScaleMode.STOP_RESUME ? "stop-resume" : "edl";
  }

  private static String label(String name) {
    return (name + ":" + INDENT).substring(0, INDENT.length());
  }
}
