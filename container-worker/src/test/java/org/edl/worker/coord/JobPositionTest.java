package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The job's position: steps, the data cursor, and the epoch and chunks derived from it. */
class JobPositionTest {
  @Test
  void theStartIsStepZeroWithNoLoss() {
    assertEquals(0, JobPosition.START.step());
    assertEquals(0, JobPosition.START.samplesSeen());
    assertEquals(0, JobPosition.START.dataEpoch());
    assertEquals(0, JobPosition.START.finishedChunks());
    assertTrue(Double.isNaN(JobPosition.START.lastLoss()));
  }

  @Test
  void aCompletedStepAdvancesTheStepTheCursorAndTheChunks() {
    // 64 samples per epoch, chunks of 12.
    JobPosition p = JobPosition.START.completed(12, 0.5, 64, 12);
    assertEquals(new JobPosition(1, 0, 12, 1, 0.5), p);
    for (int i = 0; i < 4; i++) {
      p = p.completed(12, 0.25, 64, 12);
    }
    assertEquals(new JobPosition(5, 0, 60, 5, 0.25), p);
    p = p.completed(12, 0.2, 64, 12);
    assertEquals(new JobPosition(6, 1, 72, 0, 0.2), p, "72 samples: epoch 1, 8 samples into it, no chunk done");
    p = p.completed(12, 0.2, 64, 12);
    assertEquals(new JobPosition(7, 1, 84, 1, 0.2), p);
  }

  @Test
  void withoutAnEpochSizeOnlyTheStepAndCursorMove() {
    JobPosition p = JobPosition.START.completed(10, 1.0, 0, 12).completed(10, 2.0, 0, 12);
    assertEquals(new JobPosition(2, 0, 20, 0, 2.0), p);
  }

  @Test
  void aPositionAtAStepAndCursorDerivesTheEpochAndChunks() {
    assertEquals(new JobPosition(30, 2, 150, 1, 0.1), JobPosition.at(30, 150, 64, 12, 0.1),
        "150 = 2 x 64 + 22: epoch 2, one chunk of 12 done");
    assertEquals(new JobPosition(3, 0, 150, 0, 0.1), JobPosition.at(3, 150, 0, 12, 0.1));
    assertEquals(new JobPosition(3, 0, 5, 5, 0.1), JobPosition.at(3, 5, 64, 0, 0.1), "chunk 0 counts as 1");
  }

  @Test
  void movingTheStepAndCursorKeepsTheLossAndWithoutAnEpochSizeTheEpoch() {
    JobPosition p = new JobPosition(10, 3, 250, 2, 0.7);
    assertEquals(new JobPosition(4, 0, 48, 4, 0.7), p.withStepAndCursor(4, 48, 64, 12));
    assertEquals(new JobPosition(4, 3, 48, 2, 0.7), p.withStepAndCursor(4, 48, 0, 12),
        "no epoch size known: the epoch and chunks cannot be derived and stay as they were");
  }

  @Test
  void positionsWithoutALossAreEqual() {
    assertEquals(new JobPosition(1, 0, 12, 0, Double.NaN), new JobPosition(1, 0, 12, 0, Double.NaN));
  }
}
