package org.edl.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.edl.bench.Timelines.Row;

/**
 * Turns worker timelines into the cost of one change of parallelism, the same way for EDL and
 * for stop-resume, so the two are compared on equal terms.
 *
 * <p>The change is found as the first step {@code k} (its batches ending after the request)
 * trained by the new number of workers right after a step {@code k-1} trained by the old number.
 * Then:
 * <ul>
 *   <li>stop time: how much longer the gap from the end of step {@code k-1} to the end of step
 *       {@code k} (latest worker each) was than the median gap of the steps before: the time the
 *       job did not train because of the change;</li>
 *   <li>end-to-end time: from the request to the end of step {@code k};</li>
 *   <li>resource loss: GPU-seconds held but idle because of the change: for a worker that trained
 *       both steps, its own excess gap; for a worker that trained {@code k-1} but not {@code k}
 *       (it left, or stop-resume stopped it), the time from its last batch to the end of its
 *       run; for a worker whose first batch is {@code k} (a newcomer, or a restarted worker), the
 *       time from its process start to that batch.</li>
 * </ul>
 */
public final class ScalingAnalysis {
  /** How many steps before the change set the normal pace. */
  private static final int PACE_STEPS = 10;
  /** A {@code switch} row's detail: the worker's role and the ring's sizes ("survivor 6->5"). */
  private static final Pattern SWITCH = Pattern.compile("(\\w+) (\\d+)->(\\d+)");

  /** The cost of one change; {@code step} is {@code k}, the first step at the new size. */
  public record Cost(long step, double stopSeconds, double endToEndSeconds, double lossGpuSeconds) {}

  /**
   * One switch of the ring as its members recorded it ({@code switch} rows): after step
   * {@code lastStep} the ring went from {@code before} to {@code after} workers; {@code atMs} is
   * the earliest start any member recorded for it.
   */
  public record Switch(long lastStep, int before, int after, long atMs) {}

  private final Map<String, List<Row>> byWorker;
  /** step -> (worker -> batch row) */
  private final TreeMap<Long, Map<String, Row>> steps = new TreeMap<>();

  public ScalingAnalysis(Timelines timelines) {
    this.byWorker = timelines.byWorker();
    byWorker.forEach((worker, rows) -> rows.stream().filter(r -> r.event().equals("batch"))
        .forEach(r -> steps.computeIfAbsent(r.step(), s -> new HashMap<>()).put(worker, r)));
  }

  /**
   * @param requestMs wall-clock time the change was asked for
   * @throws IllegalStateException when the timelines show no such change after the request
   */
  public Cost cost(long requestMs, int before, int after, int gpusPerWorker) {
    Long k = findChange(requestMs, before, after);
    if (k == null) {
      throw new IllegalStateException("no step after " + requestMs + " ms went from " + before
          + " to " + after + " workers; steps seen: " + summary());
    }
    Map<String, Row> last = steps.get(k - 1);
    Map<String, Row> first = steps.get(k);
    double pace = normalGapMs(k - 1);
    double stop = stopSecondsAfter(k - 1);
    double endToEnd = (latestEnd(first) - requestMs) / 1000.0;
    double idleMs = 0;
    for (Map.Entry<String, Row> e : last.entrySet()) {
      Row next = first.get(e.getKey());
      if (next != null) {
        idleMs += Math.max(0, next.endMs() - e.getValue().endMs() - pace);
      } else {
        Row end = Timelines.first(byWorker.get(e.getKey()), "end");
        idleMs += end == null ? 0 : Math.max(0, end.startMs() - e.getValue().endMs());
      }
    }
    for (Map.Entry<String, Row> e : first.entrySet()) {
      if (!last.containsKey(e.getKey())) {
        Row process = Timelines.first(byWorker.get(e.getKey()), "process");
        idleMs += process == null ? 0 : Math.max(0, e.getValue().startMs() - process.startMs());
      }
    }
    return new Cost(k, stop, endToEnd, idleMs / 1000.0 * gpusPerWorker);
  }

  /**
   * Every switch the workers' timelines recorded, in the order they began; one per switch,
   * however many of its members wrote a row for it. A worker killed outright writes no timeline,
   * so counting each step's batches would miss a ring's size while it was a member: the members
   * that stayed recorded the switch all the same. A recovery is no switch and is not listed.
   */
  public List<Switch> switches() {
    Map<List<Long>, Switch> byKey = new LinkedHashMap<>();
    byWorker.values().forEach(rows -> rows.stream().filter(r -> r.event().equals("switch")).forEach(r -> {
      Matcher m = SWITCH.matcher(r.detail());
      if (m.matches()) {
        int before = Integer.parseInt(m.group(2));
        int after = Integer.parseInt(m.group(3));
        byKey.merge(List.of(r.step(), (long) before, (long) after), new Switch(r.step(), before, after, r.startMs()),
            (a, b) -> a.atMs() <= b.atMs() ? a : b);
      }
    }));
    List<Switch> all = new ArrayList<>(byKey.values());
    all.sort(Comparator.comparingLong(Switch::atMs).thenComparingLong(Switch::lastStep));
    return all;
  }

  /**
   * The stop time of a change after step {@code lastStep} (see the class comment): how much longer
   * step {@code lastStep + 1} took to end than the steps before it; NaN when either step has no
   * batch in the timelines.
   */
  public double stopSecondsAfter(long lastStep) {
    Map<String, Row> last = steps.get(lastStep);
    Map<String, Row> first = steps.get(lastStep + 1);
    if (last == null || first == null) {
      return Double.NaN;
    }
    double gap = latestEnd(first) - latestEnd(last);
    return Math.max(0, gap - normalGapMs(lastStep)) / 1000.0;
  }

  /**
   * How the newcomers of the change at step {@code k} ({@link Cost#step}) spent their start, in
   * seconds from their JVM's start (the slowest newcomer each): registered with the leader, ready
   * to join (data and model prepared), first batch begun. NaN where a timeline lacks the event.
   */
  public record NewcomerStart(int newcomers, double registeredSeconds, double readySeconds, double firstBatchSeconds) {}

  public NewcomerStart newcomerStart(long k) {
    Map<String, Row> last = steps.getOrDefault(k - 1, Map.of());
    double registered = Double.NaN;
    double ready = Double.NaN;
    double batch = Double.NaN;
    int n = 0;
    for (Map.Entry<String, Row> e : steps.getOrDefault(k, Map.of()).entrySet()) {
      List<Row> rows = byWorker.get(e.getKey());
      Row process = Timelines.first(rows, "process");
      if (last.containsKey(e.getKey()) || process == null) {
        continue;
      }
      n++;
      registered = slowest(registered, Timelines.first(rows, "registered"), process);
      ready = slowest(ready, Timelines.first(rows, "ready"), process);
      batch = Math.max(Double.isNaN(batch) ? 0 : batch, (e.getValue().startMs() - process.startMs()) / 1000.0);
    }
    return new NewcomerStart(n, registered, ready, batch);
  }

  private static double slowest(double sofar, Row event, Row process) {
    if (event == null) {
      return sofar;
    }
    double s = (event.startMs() - process.startMs()) / 1000.0;
    return Double.isNaN(sofar) ? s : Math.max(sofar, s);
  }

  /** The last step whose latest batch ended by {@code ms}, or -1. */
  public long lastStepEndedBy(long ms) {
    long found = -1;
    for (Map.Entry<Long, Map<String, Row>> e : steps.entrySet()) {
      if (latestEnd(e.getValue()) <= ms) {
        found = e.getKey();
      }
    }
    return found;
  }

  /** Wall-clock end of {@code step} (its latest worker), or -1 when nobody trained it. */
  public long stepEndMs(long step) {
    Map<String, Row> s = steps.get(step);
    return s == null ? -1 : latestEnd(s);
  }

  private Long findChange(long requestMs, int before, int after) {
    for (Map.Entry<Long, Map<String, Row>> e : steps.entrySet()) {
      long k = e.getKey();
      Map<String, Row> prev = steps.get(k - 1);
      if (prev != null && latestEnd(e.getValue()) >= requestMs && prev.size() == before
          && e.getValue().size() == after) {
        return k;
      }
    }
    return null;
  }

  private double normalGapMs(long upTo) {
    List<Long> gaps = new ArrayList<>();
    for (long s = upTo; s > upTo - PACE_STEPS && steps.containsKey(s - 1); s--) {
      gaps.add(latestEnd(steps.get(s)) - latestEnd(steps.get(s - 1)));
    }
    if (gaps.isEmpty()) {
      return 0;
    }
    gaps.sort(null);
    return gaps.get(gaps.size() / 2);
  }

  private static long latestEnd(Map<String, Row> step) {
    return step.values().stream().mapToLong(Row::endMs).max().orElse(-1);
  }

  private String summary() {
    if (steps.isEmpty()) {
      return "none";
    }
    StringBuilder s = new StringBuilder();
    int lastSize = -1;
    for (Map.Entry<Long, Map<String, Row>> e : steps.entrySet()) {
      if (e.getValue().size() != lastSize) {
        lastSize = e.getValue().size();
        s.append(s.length() == 0 ? "" : ", ").append("from ").append(e.getKey()).append(": ").append(lastSize);
      }
    }
    return s.toString();
  }
}
