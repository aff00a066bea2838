package org.edl.devtools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.edl.bench.ScalingAnalysis;
import org.edl.bench.ScalingAnalysis.Switch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's closing table: one row per change the story saw, with how long it paused training.
 *
 * <p>A change the user watched as one ("alice arrives, the job shrinks 6 -> 4") may reach the
 * ring in several switches: two warned workers leave at two steps, two newcomers join one after
 * the other. Its row gives the pauses of those switches added up, and each of them, since the
 * question the table answers is what the change cost the job; a row per switch would split one
 * event of the story into steps the story never showed.
 *
 * <p>The switches come from the workers' timelines, not from when the story saw the change: the
 * AM answers "scaling" until a change is over (containers released, newcomers admitted), so the
 * story sees a change seconds after its switches, and misses the sizes in between. A change's
 * switches are therefore the latest run of switches that leads from its old size to its new one,
 * one way, begun before it was seen and after the switches of the change before it.
 */
final class PauseTable {
  private static final Logger LOG = LoggerFactory.getLogger(PauseTable.class);
  /**
   * How much later than the story saw a change its last switch may seem to begin. The leader
   * reports the new size only once the old ring's last step is complete, which is when the
   * members record the switch as begun (a newcomer a little earlier, from its order); the story's
   * clock and theirs are the same machine's. The margin keeps a few milliseconds' disagreement
   * from losing a change; it is far shorter than the time between two changes of the story.
   */
  private static final long SEEN_EARLY_MS = 1_000;

  private final long startedMs;
  private final ScalingAnalysis analysis;
  private final List<Switch> switches;

  /**
   * @param startedMs when the story began (wall clock, as the timelines' rows are), for the time column
   * @param analysis  the job's worker timelines; null when they could not be read
   */
  PauseTable(long startedMs, ScalingAnalysis analysis) {
    this.startedMs = startedMs;
    this.analysis = analysis;
    this.switches = analysis == null ? List.of() : analysis.switches();
  }

  /** The table's lines, its header first. */
  List<String> lines(List<SeenChange> changes) {
    List<String> lines = new ArrayList<>();
    lines.add("| t (s) | change | workers | training paused (s) |");
    lines.add("|---:|---|---|---:|");
    int next = 0;
    for (SeenChange c : changes) {
      long at = c.seenMs();
      String pause;
      if (c.pause() != null) {
        pause = c.pause();
      } else if (analysis == null) {
        pause = "not measured (no worker timelines)";
      } else {
        Optional<int[]> run = runOf(c, next);
        if (run.isPresent()) {
          List<Switch> carried = switches.subList(run.get()[0], run.get()[1] + 1);
          next = run.get()[1] + 1;
          at = carried.get(0).atMs();
          pause = pauseOf(carried);
        } else {
          LOG.debug("No run of switches from {} to {} begun by {} ms; the timelines' switches: {}", c.from(), c.to(),
              c.seenMs(), switches);
          pause = "not measured (no such switches in the workers' timelines)";
        }
      }
      lines.add(String.format(Locale.ROOT, "| %.0f | %s | %d -> %d | %s |", (at - startedMs) / 1000.0, c.what(),
          c.from(), c.to(), pause));
    }
    return lines;
  }

  /**
   * Indices (first, last) into {@link #switches} of the run that carried {@code c} out, searched
   * from the latest switch begun by the time it was seen back to {@code from}.
   */
  private Optional<int[]> runOf(SeenChange c, int from) {
    int way = Integer.signum(c.to() - c.from());
    for (int last = switches.size() - 1; last >= from; last--) {
      Switch s = switches.get(last);
      if (s.after() != c.to() || s.atMs() > c.seenMs() + SEEN_EARLY_MS) {
        continue;
      }
      for (int first = last; first >= from && Integer.signum(switches.get(first).after()
          - switches.get(first).before()) == way; first--) {
        if (first < last && switches.get(first).after() != switches.get(first + 1).before()) {
          break;
        }
        if (switches.get(first).before() == c.from()) {
          return Optional.of(new int[] {first, last});
        }
      }
    }
    return Optional.empty();
  }

  /** "0.41", or "0.83 (2 switches: 0.41 + 0.42)"; not measured where a switch has no batches around it. */
  private String pauseOf(List<Switch> carried) {
    List<Double> each = carried.stream().map(s -> analysis.stopSecondsAfter(s.lastStep())).toList();
    if (each.stream().anyMatch(p -> p.isNaN())) {
      return "not measured (no batches around the switch in the workers' timelines)";
    }
    double sum = each.stream().mapToDouble(Double::doubleValue).sum();
    if (each.size() == 1) {
      return String.format(Locale.ROOT, "%.2f", sum);
    }
    return String.format(Locale.ROOT, "%.2f (%d switches: %s)", sum, each.size(),
        each.stream().map(p -> String.format(Locale.ROOT, "%.2f", p)).collect(Collectors.joining(" + ")));
  }
}
