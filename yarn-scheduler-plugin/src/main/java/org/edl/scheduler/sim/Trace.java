package org.edl.scheduler.sim;

import java.util.List;

/** The jobs read from a trace file and how many bad records {@code --skip-bad} passed over. */
public record Trace(String source, List<TraceJob> jobs, int skipped, int notRun) {
  public Trace {
    jobs = List.copyOf(jobs);
  }

  /** The first {@code n} jobs by submission, for scaling runs over a prefix of the trace. */
  public Trace prefix(int n) {
    return new Trace(source + " (first " + n + ")", jobs.subList(0, Math.min(n, jobs.size())), skipped, notRun);
  }
}
