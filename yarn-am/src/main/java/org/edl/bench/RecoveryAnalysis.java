package org.edl.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.edl.bench.Timelines.Row;

/**
 * What one worker's death cost a job, from the timelines of the workers that lived on (and, for
 * the stop-resume baseline, of the job resubmitted from its checkpoint), the same way for every
 * recovery mode:
 * <ul>
 *   <li>the death: where the longest silence (no batch ending) after the kill request begins, at
 *       the end of the last step completed before it (the signal lands a little after the request);</li>
 *   <li>recovery time: from the death until training resumed, i.e. until the start of the first
 *       step completed after the death (its end less one normal batch time: a batch redone after
 *       recovery keeps the start of its first attempt in the timeline);</li>
 *   <li>steps redone: steps completed before the death and trained again after it (consistent
 *       recovery goes back to its checkpoint; approximate recovery redoes none, the interrupted
 *       batch never completed);</li>
 *   <li>work lost, GPU-seconds: the survivors' GPUs idle during the recovery time, plus the
 *       redone steps at the new size.</li>
 * </ul>
 */
public final class RecoveryAnalysis {

  /** The figures of one death. */
  public record Cost(double recoverySeconds, long lastStepBefore, long firstStepAfter, long stepsRedone,
      long workersAfter, double batchSeconds, double lostGpuSeconds) {}

  private RecoveryAnalysis() {}

  /**
   * @param rows every batch row of the job (and of its resubmission), any worker
   * @param killMs wall-clock time the kill was asked for
   * @param lastStepFallback the last step known before the death when no timeline shows it (the
   *        stop-resume baseline's killed job: its workers were stopped without writing timelines)
   */
  public static Cost of(List<Row> rows, long killMs, long lastStepFallback, int workersBefore,
      int gpusPerWorker) {
    List<Row> batches = rows.stream().filter(r -> r.event().equals("batch"))
        .sorted(Comparator.comparingLong(Row::endMs)).toList();
    // The kill is asked for at killMs but lands a little later (the NodeManager delivers it), and
    // batches go on ending until then: the death is where the longest silence after killMs begins.
    long previousEnd = batches.stream().filter(r -> r.endMs() <= killMs).mapToLong(Row::endMs).max().orElse(killMs);
    long deathMs = previousEnd;
    long longestGap = -1;
    Row firstAfter = null;
    for (Row r : batches) {
      if (r.endMs() <= killMs) {
        continue;
      }
      if (r.endMs() - previousEnd > longestGap) {
        longestGap = r.endMs() - previousEnd;
        deathMs = previousEnd;
        firstAfter = r;
      }
      previousEnd = r.endMs();
    }
    if (firstAfter == null) {
      throw new IllegalStateException("no step completed after the worker died at " + killMs);
    }
    long death = deathMs;
    Row first = firstAfter;
    long lastBefore = batches.stream().filter(r -> r.endMs() <= death).mapToLong(Row::step).max()
        .orElse(lastStepFallback);
    // The ring that trained the first step after the death (survivors, or a restarted job).
    long workersAfter = batches.stream().filter(r -> r.step() == first.step() && r.endMs() > death).count();
    double batchMs = medianBatchMs(batches, first.endMs());
    double recovery = Math.max(0, first.endMs() - death - batchMs) / 1000.0;
    long redone = Math.max(0, lastBefore - first.step() + 1);
    double lost = (workersBefore - 1) * gpusPerWorker * recovery
        + workersAfter * gpusPerWorker * redone * batchMs / 1000.0;
    return new Cost(recovery, lastBefore, first.step(), redone, workersAfter, batchMs / 1000.0, lost);
  }

  /** The median batch time of the batches after {@code fromMs} (the job at its pace again). */
  private static double medianBatchMs(List<Row> batches, long fromMs) {
    List<Long> ms = new ArrayList<>();
    for (Row r : batches) {
      if (r.startMs() >= fromMs) {
        ms.add(r.endMs() - r.startMs());
      }
    }
    if (ms.isEmpty()) {
      batches.forEach(r -> ms.add(r.endMs() - r.startMs()));
    }
    ms.sort(null);
    return ms.isEmpty() ? 0 : ms.get(ms.size() / 2);
  }
}
