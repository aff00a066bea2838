package org.edl.worker.coord;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The leader's account of steps: each member's report of each step, which steps are complete
 * (every member of the ring that runs the step reported it), and what completing them did to the
 * job's {@link JobPosition}. A step's loss is the sample-weighted mean of its members' losses.
 * Also the figures derived from completions: recent and overall samples per second, the first
 * loss. Not thread-safe; {@link CoordinatorState} owns it.
 */
final class StepLedger {
  /** Steps of history used for the current samples/s. */
  private static final int RATE_WINDOW = 20;

  /** A step every member reported, as it completed. */
  record Completed(long step, double slowestSeconds, Map<String, Double> computeSeconds) {}

  /** The reports for one step so far. */
  private static final class Tally {
    final Set<String> reporters = new HashSet<>();
    final Map<String, Double> computeSeconds = new LinkedHashMap<>();
    long firstNanos;
    double weightedLoss;
    long samples;
    long batchStart = -1;
    double slowestSeconds;

    Tally(long firstNanos) {
      this.firstNanos = firstNanos;
    }

    void add(StepReport r) {
      if (reporters.add(r.workerId())) {
        slowestSeconds = Math.max(slowestSeconds, r.batchSeconds());
        computeSeconds.put(r.workerId(), r.computeSeconds() >= 0 ? r.computeSeconds() : r.batchSeconds());
        weightedLoss += r.loss() * r.samples();
        samples += r.samples();
      }
    }
  }

  private final int chunk;
  private JobPosition position;
  private final TreeMap<Long, Tally> open = new TreeMap<>();
  private final Map<String, Double> lastBatchSeconds = new LinkedHashMap<>();
  private final Map<String, Double> lastComputeSeconds = new LinkedHashMap<>();
  private final Map<String, Long> lastReported = new HashMap<>();
  /** (nanos, samplesSeen) at each completed step, newest last. */
  private final Deque<long[]> completions = new ArrayDeque<>();
  private long highestReported;
  private int epochSize;
  private double firstLoss;
  private long firstCompletionNanos = -1;
  private long samplesAtFirstCompletion;

  /**
   * @param start     where the job is
   * @param chunk     samples per data chunk (the job's batch size)
   * @param firstLoss the first completed step's loss when it is known (a successor's), else NaN
   */
  StepLedger(JobPosition start, int chunk, double firstLoss) {
    this.chunk = Math.max(1, chunk);
    this.position = start;
    this.firstLoss = firstLoss;
    this.highestReported = start.step() - 1;
  }

  JobPosition position() {
    return position;
  }

  /** Takes {@code report} into its step's tally; refuses a step already done or a batch start the others disagree with. */
  void record(StepReport report, long now) throws Refused {
    long step = report.step();
    if (step < position.step()) {
      throw Refused.invalid("step", Long.toString(step), "already completed (job is at step " + position.step() + ")");
    }
    if (report.samples() < 0 || Double.isNaN(report.batchSeconds())) {
      throw Refused.invalid("samples", Integer.toString(report.samples()), "a report needs samples >= 0 and a batch time");
    }
    Tally tally = open.computeIfAbsent(step, s -> new Tally(now));
    if (report.batchStart() >= 0) {
      if (tally.batchStart >= 0 && tally.batchStart != report.batchStart()) {
        throw Refused.invalid("batchStart", Long.toString(report.batchStart()), "step " + step
            + " started at sample position " + tally.batchStart + " for the other members");
      }
      tally.batchStart = report.batchStart();
    }
    if (report.epochSize() > 0) {
      epochSize = report.epochSize();
    }
    lastBatchSeconds.put(report.workerId(), report.batchSeconds());
    if (report.computeSeconds() >= 0) {
      lastComputeSeconds.put(report.workerId(), report.computeSeconds());
    }
    noteReported(report.workerId(), step);
    tally.add(report);
  }

  /** A member said it holds {@code step} (a report, or a recovery request). */
  void noteReported(String workerId, long step) {
    lastReported.merge(workerId, step, Math::max);
    highestReported = Math.max(highestReported, step);
  }

  /**
   * Completes the job's next step if every one of {@code members} reported it.
   *
   * @return the completed step; empty when it is not complete yet
   */
  Optional<Completed> completeNext(List<String> members, long now) {
    Tally t = open.get(position.step());
    if (t == null || !t.reporters.containsAll(members)) {
      return Optional.empty();
    }
    long step = position.step();
    open.remove(step);
    double loss = t.samples == 0 ? Double.NaN : t.weightedLoss / t.samples;
    position = position.completed(t.samples, loss, epochSize, chunk);
    if (Double.isNaN(firstLoss)) {
      firstLoss = loss;
    }
    if (firstCompletionNanos < 0) {
      firstCompletionNanos = now;
      samplesAtFirstCompletion = position.samplesSeen();
    }
    completions.addLast(new long[] {now, position.samplesSeen()});
    while (completions.size() > RATE_WINDOW) {
      completions.pollFirst();
    }
    return Optional.of(new Completed(step, t.slowestSeconds, Map.copyOf(t.computeSeconds)));
  }

  /** The oldest step not complete yet, with who reported it and when the first report came; empty if nobody did. */
  Optional<OpenStep> openStep() {
    Tally t = open.get(position.step());
    return t == null ? Optional.empty() : Optional.of(new OpenStep(position.step(), Set.copyOf(t.reporters), t.firstNanos));
  }

  record OpenStep(long step, Set<String> reporters, long firstNanos) {}

  /** The leader itself was paused until {@code now}: the open steps' waits start again from here. */
  void pardon(long now) {
    open.values().forEach(t -> t.firstNanos = Math.max(t.firstNanos, now));
  }

  boolean isComplete(long step) {
    return step < position.step();
  }

  /**
   * Back (or on) to {@code to} after a recovery: the open tallies belonged to the ring that ended,
   * and steps from {@code to} on are trained again, so nobody has reported them on this timeline.
   */
  void resetTo(JobPosition to) {
    position = to;
    open.clear();
    highestReported = to.step() - 1;
    lastReported.replaceAll((id, step) -> Math.min(step, to.step() - 1));
  }

  /** Moves the cursor after a recovery that set the job to {@code step} at sample {@code cursor}. */
  JobPosition positionAt(long step, long cursor) {
    return position.withStepAndCursor(step, cursor, epochSize, chunk);
  }

  void forget(String workerId) {
    lastBatchSeconds.remove(workerId);
    lastComputeSeconds.remove(workerId);
  }

  long highestReported() {
    return highestReported;
  }

  /** The highest step {@code workerId} reported; -1 if none. */
  long lastReported(String workerId) {
    return lastReported.getOrDefault(workerId, -1L);
  }

  boolean hasReported(String workerId) {
    return lastReported.containsKey(workerId);
  }

  /** The mean of the latest batch times of {@code ids} (0 when none reported). */
  double meanBatchSeconds(List<String> ids) {
    return meanOf(lastBatchSeconds, ids);
  }

  /** The mean of the latest times before the all-reduce of {@code ids} (0 when none reported). */
  double meanComputeSeconds(List<String> ids) {
    return meanOf(lastComputeSeconds, ids);
  }

  private static double meanOf(Map<String, Double> latest, List<String> ids) {
    double sum = 0;
    int n = 0;
    for (String id : ids) {
      Double s = latest.get(id);
      if (s != null) {
        sum += s;
        n++;
      }
    }
    return n == 0 ? 0 : sum / n;
  }

  Map<String, Double> lastBatchSeconds() {
    return Map.copyOf(lastBatchSeconds);
  }

  double firstLoss() {
    return firstLoss;
  }

  /** Samples per second over the last few completed steps; 0 before two completed. */
  double recentSamplesPerSecond() {
    if (completions.size() < 2) {
      return 0;
    }
    long[] oldest = completions.peekFirst();
    long[] newest = completions.peekLast();
    return rate(newest[1] - oldest[1], newest[0] - oldest[0]);
  }

  /** Samples per second from the first step this leader completed to the last. */
  double overallSamplesPerSecond() {
    if (completions.isEmpty()) {
      return 0;
    }
    long[] newest = completions.peekLast();
    return rate(newest[1] - samplesAtFirstCompletion, newest[0] - firstCompletionNanos);
  }

  /** When the last step completed (the leader's clock), or -1. */
  long lastCompletionNanos() {
    return completions.isEmpty() ? -1 : completions.peekLast()[0];
  }

  private static double rate(long samples, long nanos) {
    return nanos <= 0 ? 0 : samples * 1e9 / nanos;
  }
}
