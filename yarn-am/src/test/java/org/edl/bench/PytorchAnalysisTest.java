package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cost of a change from step logs worked out by hand. */
class PytorchAnalysisTest {
  private static void steps(List<PytorchAnalysis.StepEnd> ends, int workers, long from, long to, double start,
      double each) {
    for (long s = from; s <= to; s++) {
      for (int w = 0; w < workers; w++) {
        ends.add(new PytorchAnalysis.StepEnd(start + (s - from) * each + w * 1e-4, s, workers));
      }
    }
  }

  /**
   * Four workers end steps 1..50 every 0.1 s until t = 104.9; the request comes at 103; five
   * workers restart from a snapshot at step 40 and redo 41..50 from t = 110, 0.1 s each, so their
   * first new step (51) ends at t = 111.0. Stop: 111.0 - 104.9 - 0.1 = 6.0 s; loss: 4 x 6.0 for the
   * workers that stay, plus the newcomer's 111.0 - 103 = 8.0.
   */
  @Test
  void aRestartThatRedoesStepsCountsOnlyNewProgressAndTheNewcomerFromTheRequest() {
    List<PytorchAnalysis.StepEnd> ends = new ArrayList<>();
    steps(ends, 4, 1, 50, 100.0, 0.1);
    steps(ends, 5, 41, 80, 110.0, 0.1);
    PytorchAnalysis.Cost c = new PytorchAnalysis(ends).change(103.0, 4, 5);
    assertEquals(6.0, c.stopSeconds(), 1e-2);
    assertEquals(4 * 6.0 + 8.0, c.lossWorkerSeconds(), 1e-2);
  }

  /** A stop-free scale-in: step 51 at four workers ends 0.3 s after step 50 at five (0.1 s each): stop 0.2 s. */
  @Test
  void aScaleInCountsTheWorkersThatStayOnly() {
    List<PytorchAnalysis.StepEnd> ends = new ArrayList<>();
    steps(ends, 5, 1, 50, 100.0, 0.1);
    steps(ends, 4, 51, 90, 105.2, 0.1);
    PytorchAnalysis.Cost c = new PytorchAnalysis(ends).change(104.0, 5, 4);
    assertEquals(0.2, c.stopSeconds(), 1e-2);
    assertEquals(4 * 0.2, c.lossWorkerSeconds(), 1e-2);
  }
}
