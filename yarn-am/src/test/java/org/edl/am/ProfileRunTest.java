package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.edl.thrift.JobProgress;
import org.edl.thrift.ProfilePoint;
import org.junit.jupiter.api.Test;

class ProfileRunTest {
  private final List<Integer> asked = new ArrayList<>();

  private static JobProgress report(int workers, long step, long samples, double seconds) {
    JobProgress p = new JobProgress(step, 1000, 1.0, 0, workers);
    p.setSamplesSeen(samples);
    p.setLeaderSeconds(seconds);
    return p;
  }

  @Test
  void goesToMaxThenMeasuresEachSizeDownToMinAndReturnsToTheStartingSize() throws Exception {
    ProfileRun run = new ProfileRun(2, 4, 10, asked::add);
    run.start(3);
    assertEquals(List.of(4), asked);

    run.onProgress(report(3, 5, 500, 1.0)); // still the old ring: ignored
    run.onProgress(report(4, 8, 800, 2.0)); // window starts
    run.onProgress(report(4, 12, 1200, 3.0)); // only 4 steps
    assertEquals(List.of(4), asked);
    run.onProgress(report(4, 18, 2800, 4.0)); // 10 steps, 2000 samples in 2 s
    assertEquals(List.of(4, 3), asked);
    run.onProgress(report(3, 20, 3000, 5.0));
    run.onProgress(report(3, 30, 4500, 8.0));
    assertEquals(List.of(4, 3, 2), asked);
    run.onProgress(report(2, 33, 4800, 9.0));
    assertFalse(run.isDone());
    run.onProgress(report(2, 45, 5800, 14.0));
    assertTrue(run.isDone());
    assertEquals(List.of(4, 3, 2, 3), asked, "back to the size before profiling");

    List<ProfilePoint> points = run.result().get();
    assertEquals(List.of(4, 3, 2), points.stream().map(ProfilePoint::getWorkers).toList());
    assertEquals(1000.0, points.get(0).getSamplesPerSecond(), 1e-9);
    assertEquals(500.0, points.get(1).getSamplesPerSecond(), 1e-9);
    assertEquals(200.0, points.get(2).getSamplesPerSecond(), 1e-9);
    assertEquals(12, points.get(2).getBatches());
  }

  @Test
  void aRefusedScaleEndsTheRunWithTheReason() {
    ProfileRun run = new ProfileRun(1, 2, 5, n -> {
      throw new IllegalStateException("no GPUs free for " + n);
    });
    run.start(1);
    assertTrue(run.result().isCompletedExceptionally());
  }

  @Test
  void theStoredTableHasOneRowPerSize() throws Exception {
    String csv = ProfileStore.csv(List.of(new ProfilePoint(4, 1000.5, 10), new ProfilePoint(3, 750, 11)));
    assertEquals("workers,samples_per_second,batches\n4,1000.500,10\n3,750.000,11\n", csv);
    byte[] png = ProfileStore.chart(List.of(new ProfilePoint(4, 1000.5, 10), new ProfilePoint(3, 750, 11)), "job");
    assertEquals((byte) 0x89, png[0]);
    assertEquals('P', png[1]);
  }
}
