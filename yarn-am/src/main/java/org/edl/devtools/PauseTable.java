package org.edl.devtools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.edl.bench.ScalingAnalysis;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The demo's closing table: each change the story saw and how long it paused training. */
final class PauseTable {
  private static final Logger LOG = LoggerFactory.getLogger(PauseTable.class);

  private final long startedMs;
  private final ScalingAnalysis analysis;

  /**
   * @param startedMs when the story began (wall clock), for the table's time column
   * @param analysis  the job's worker timelines; null when they could not be read
   */
  PauseTable(long startedMs, ScalingAnalysis analysis) {
    this.startedMs = startedMs;
    this.analysis = analysis;
  }

  /** The table's lines, its header first. */
  List<String> lines(List<SeenChange> changes) {
    List<String> lines = new ArrayList<>();
    lines.add("| t (s) | change | workers | training paused (s) |");
    lines.add("|---:|---|---|---:|");
    for (SeenChange c : changes) {
      String pause = c.pause() != null ? c.pause() : analysis == null ? "not measured" : pauseOf(analysis, c);
      lines.add(String.format(Locale.ROOT, "| %.0f | %s | %d -> %d | %s |", (c.seenMs() - startedMs) / 1000.0,
          c.what(), c.from(), c.to(), pause));
    }
    return lines;
  }

  /**
   * The pause of a change the demo saw, from the timelines. The change was seen up to a poll and a
   * report late, so the search starts a little before; a change of several workers may have
   * reached the ring in steps of one (two warned containers leaving at two steps), whose pauses
   * are added.
   */
  private static String pauseOf(ScalingAnalysis analysis, SeenChange c) {
    long from = c.seenMs() - 3000;
    try {
      return String.format(Locale.ROOT, "%.2f", analysis.cost(from, c.from(), c.to(), 1).stopSeconds());
    } catch (RuntimeException direct) {
      int by = Integer.signum(c.to() - c.from());
      double sum = 0;
      try {
        for (int n = c.from(); n != c.to(); n += by) {
          sum += analysis.cost(from, n, n + by, 1).stopSeconds();
        }
      } catch (RuntimeException stepwise) {
        LOG.info("Pause of {} -> {} not measured: {}", c.from(), c.to(), direct.getMessage());
        return "not measured";
      }
      return String.format(Locale.ROOT, "%.2f (%d switches)", sum, Math.abs(c.to() - c.from()));
    }
  }
}
