package org.edl.bench.soak;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.edl.bench.Timelines;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.runtime.Timeline;

/**
 * What the soak benchmark checks once the job has stopped, from the workers' own timelines:
 * every sample position up to where the job stopped was trained exactly once, by all the
 * containers it ever had together ({@link Timeline.Coverage}); the workers of the last ring ended
 * with the same parameters; no worker ended otherwise than by leaving or by the stop.
 */
public final class SoakChecks {
  /**
   * @param coverageOk   the positions trained equal {@code [0, stop cursor)}, each once
   * @param parametersOk the stopped workers' parameter checksums are one
   * @param endsOk       every worker left or stopped
   * @param summary      one line with the figures behind each
   */
  public record Verdict(boolean coverageOk, boolean parametersOk, boolean endsOk, String summary) {
    public boolean ok() {
      return coverageOk && parametersOk && endsOk;
    }
  }

  /** One worker's last two rows. */
  record WorkerEnd(String how, Timeline.Coverage coverage, String parameters) {}

  private SoakChecks() {}

  static Verdict check(Configuration conf, String output, String stopCheckpoint) throws IOException {
    Timelines timelines = Timelines.read(output, conf);
    long cursor = Checkpoint.read(conf, stopCheckpoint).meta().samplesSeen();
    Map<String, WorkerEnd> ends = new TreeMap<>();
    timelines.byWorker().forEach((worker, rows) -> ends.put(worker, end(worker, rows)));
    return judge(ends, cursor);
  }

  static Verdict judge(Map<String, WorkerEnd> ends, long cursor) {
    Timeline.Coverage trained = Timeline.Coverage.NONE;
    TreeSet<String> parameters = new TreeSet<>();
    int stopped = 0;
    Map<String, String> odd = new TreeMap<>();
    for (Map.Entry<String, WorkerEnd> e : ends.entrySet()) {
      WorkerEnd w = e.getValue();
      trained = trained.plus(w.coverage());
      switch (w.how()) {
        case "stopped" -> {
          stopped++;
          parameters.add(w.parameters());
        }
        case "left" -> { }
        default -> odd.put(e.getKey(), w.how());
      }
    }
    Timeline.Coverage expected = Timeline.Coverage.of(0, cursor);
    boolean coverageOk = trained.equals(expected);
    boolean parametersOk = stopped > 0 && parameters.size() == 1;
    String summary = String.format("%d containers; positions trained %d (fingerprint %x), the stop's cursor %d"
        + " (fingerprint %x): %s; %d workers stopped with %d parameter checksum(s) %s: %s; %s",
        ends.size(), trained.positions(), trained.fingerprint(), cursor, expected.fingerprint(),
        coverageOk ? "each once" : "NOT each once", stopped, parameters.size(), parameters,
        parametersOk ? "identical" : "NOT identical",
        odd.isEmpty() ? "every other worker left" : "ended otherwise: " + odd);
    return new Verdict(coverageOk, parametersOk, odd.isEmpty(), summary);
  }

  /** From a timeline's {@code end} and {@code trained} rows; a worker without them ended abnormally. */
  static WorkerEnd end(String worker, List<Timelines.Row> rows) {
    Timelines.Row end = Timelines.first(rows, "end");
    Timelines.Row trained = Timelines.first(rows, "trained");
    if (end == null || trained == null) {
      return new WorkerEnd("no end row", Timeline.Coverage.NONE, "");
    }
    long positions = -1;
    long fingerprint = 0;
    String parameters = "";
    for (String field : trained.detail().split(" ")) {
      int eq = field.indexOf('=');
      String value = eq < 0 ? "" : field.substring(eq + 1);
      switch (eq < 0 ? field : field.substring(0, eq)) {
        case "positions" -> positions = Long.parseLong(value);
        case "fingerprint" -> fingerprint = Long.parseUnsignedLong(value, 16);
        case "parameters" -> parameters = value;
        default -> { }
      }
    }
    if (positions < 0) {
      throw new IllegalArgumentException(worker + ": a trained row without positions: " + trained.detail());
    }
    return new WorkerEnd(end.detail(), new Timeline.Coverage(positions, fingerprint), parameters);
  }
}
